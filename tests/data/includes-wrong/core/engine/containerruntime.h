#pragma once
#include "backend/protocol.h"  // engine must not include backend
