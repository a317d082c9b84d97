#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace zeus {

// The host's trusted root certificates for the sandbox (SPEC §8 "Certificates"): on a network that inspects TLS the
// host trusts the inspecting CA in its system store, and the sandbox must too, or every HTTPS request from it fails.
// The bundle is written into the container at containerCaBundlePath() once it runs (one engine exec whose stdin
// carries it: no host path is mounted), and each command gets the variables that make curl, OpenSSL, Node.js,
// Python's requests, pip and git read it.
//
// Pure apart from reading the system store (once per process, through Qt's TLS backend). Tests add a CA of their
// own with ZEUS_TEST_CA_BUNDLE (a PEM file appended to the system's roots; docs/network.md).
class HostCertificates {
public:
    struct Bundle {
        QByteArray pem;     // every root once, PEM, in the store's order
        int count = 0;      // roots in it
        QStringList extra;  // subjects of the roots that came from ZEUS_TEST_CA_BUNDLE
    };
    // The system's roots (plus the test knob's), read on first use and kept: the store does not change under a
    // running app often enough to read it for every container.
    static const Bundle& system();
    // Builds a bundle from PEM texts (the system store's and the knob's), dropping duplicates. For tests.
    static Bundle fromPem(const QByteArray& systemPem, const QByteArray& extraPem);

    // NAME=value for every command: the variables each common TLS client reads for its trust bundle.
    static QList<QPair<QString, QByteArray>> environment();
    // The fixed script (no text of the backend) that writes its stdin to the bundle's path atomically.
    static QStringList installCommand();
    // The wgetrc installCommand() writes beside the bundle (GNU wget's only way to be told the roots).
    static QString wgetrcPath();

    // What prints the image's own bundle (Debian's place, the sandbox image's) in a throwaway container: --diagnose
    // compares it with the host's.
    static QStringList imageBundleCommand();
    // The names (subject CN, else O, else the whole subject) of the roots of `host` that `imagePem` lacks, in the
    // host's order: what a container would not trust without the host's bundle. A root counts as there when the
    // image has a certificate with its subject and key (a re-issued root is the same trust anchor).
    static QStringList missingFrom(const Bundle& host, const QByteArray& imagePem);
};

}  // namespace zeus
