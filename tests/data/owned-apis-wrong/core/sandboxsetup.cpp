#include "engine/containerruntime.h"

std::unique_ptr<ContainerRuntime> adapter() {
    return ContainerRuntime::create(RuntimeKind::Docker, QString());
}
