#include "engine/containerruntime.h"

std::unique_ptr<ContainerRuntime> ownAdapter() {
    return ContainerRuntime::create(RuntimeKind::Apple);
}
