#include <qt6keychain/keychain.h>

void readOne() {
    auto* job = new QKeychain::ReadPasswordJob(QStringLiteral("service"));
    job->start();
}
