#include <qt6keychain/keychain.h>

void writeOne() {
    auto* job = new QKeychain::WritePasswordJob(QStringLiteral("service"));
    job->start();
}
