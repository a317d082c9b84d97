#!/bin/sh
# Builds the root file system of the OFFLINE TEST IMAGE (zeus-desktop-sandbox:test).
# It is for the project's tests only, not for users: busybox-static with its applets
# plus bash and git and the libraries they need, so it can be built with no registry.
# Usage: make-rootfs.sh OUTPUT.tar
set -eu
out=${1:?usage: make-rootfs.sh OUTPUT.tar}
busybox=$(command -v busybox || true)
[ -x /bin/busybox ] && busybox=/bin/busybox
[ -n "$busybox" ] || { echo "make-rootfs: busybox-static is not installed" >&2; exit 1; }
bash_bin=$(command -v bash)

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/usr/bin" "$root/sbin" "$root/etc" "$root/tmp" "$root/workspace" \
         "$root/proc" "$root/sys" "$root/dev" "$root/root" "$root/home"
chmod 755 "$root"  # mktemp -d makes it 0700: any non-root --user could not even start the init
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] && continue
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
# copy_with_libs BINARY DEST: the binary and the shared libraries ldd lists (kept at their absolute paths)
copy_with_libs() {
    rm -f "$root$2"
    mkdir -p "$root$(dirname "$2")"
    cp "$1" "$root$2"
    for lib in $(ldd "$1" | awk '/=> \//{print $3} /^[[:space:]]*\/.*ld-linux/{print $1}'); do
        mkdir -p "$root$(dirname "$lib")"
        [ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
    done
}
copy_with_libs "$bash_bin" /bin/bash
# git, for review mode's commits (a bundle written in the container): the one binary is enough for
# for-each-ref, cat-file, rev-list, commit and bundle create, which run their helpers as builtins.
git_bin=$(command -v git || true)
[ -n "$git_bin" ] || { echo "make-rootfs: git is not installed" >&2; exit 1; }
copy_with_libs "$git_bin" /usr/bin/git
mkdir -p "$root/usr/lib/git-core"
ln -s ../../bin/git "$root/usr/lib/git-core/git"
mkdir -p "$root/usr/share/git-core/templates"
# the loader may be looked up under /lib64 too
if [ -e /lib64/ld-linux-x86-64.so.2 ]; then
    mkdir -p "$root/lib64"; cp -L /lib64/ld-linux-x86-64.so.2 "$root/lib64/"
fi
cat > "$root/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat > "$root/etc/group" <<'GR'
root:x:0:
nogroup:x:65534:
GR
tar -C "$root" -cf "$out" .
