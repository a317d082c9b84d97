#!/bin/sh
# Inside a private D-Bus session: unlock a fresh gnome-keyring, then run "$@".

eval "$(printf 'zeus-test-keyring' | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)"
export GNOME_KEYRING_CONTROL ZEUS_TEST_KEYRING=1
exec "$@"
