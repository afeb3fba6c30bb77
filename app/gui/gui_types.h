#pragma once
// Core types carried by Qt signals in the GUI.
#include <QMetaType>

#include "common/run.h"

Q_DECLARE_METATYPE(perflab::Run)
