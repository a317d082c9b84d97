#pragma once
#include "sandbox/sessionstate.h"  // monitor must not include sandbox
