// aqmlab/engines/ns3/cpp/aqmlab.h -- umbrella header: everything aqmlab JIT-compiles into ns-3.
#pragma once
#include "experiment.h"
