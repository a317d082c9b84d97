// Once started a QProcess here; now it only builds arguments (ContainerRuntime::create is named in a comment).
const char* describe() {
    return "QProcess QKeychain::Job";
}
