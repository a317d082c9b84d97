#pragma once

#include <QMap>
#include <QString>

namespace zeus {

// What `image inspect` said about one image, engine-neutral: whether it is there, and the facts the
// diagnostics need to tell the real sandbox image from the offline test image (labels, import comment).
struct ImageInspection {
    enum class Outcome {
        Present,  // the engine has the image locally
        Missing,  // the engine answered: no such image
        Failed,   // no answer we can read (engine down, timeout, crash); `error` says why
    };

    Outcome outcome = Outcome::Failed;
    QString image;    // the reference that was asked for
    QString id;       // the engine's image id or digest, when present
    QString created;  // as the engine reports it
    QString comment;  // Docker "Imported from -", Podman "imported from tarball"; empty for built images
    QMap<QString, QString> labels;
    QString error;  // the engine's own words (first line) when Missing or Failed
};

}  // namespace zeus
