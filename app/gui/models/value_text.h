#pragma once
// How a run's numbers read in the window: one place for the format of a value, the tooltip of
// a point (its exact figures) and the order of labels such as "2 writers" < "10 writers".
#include <string>
#include <string_view>

#include <QString>

#include "common/run.h"

namespace perflab::gui {

// Numbers as a person reads them: 15787.5, 0.7812, 1.2e+07.
QString format_value(double v);
// The same in a unit: a whole count ("backends", "connections": common/figure_format.h) as the
// integer it is, "20", never "20.000".
QString format_value(double v, std::string_view unit);

// A point's figures for a tooltip (HTML): "<b>iolist</b> — 10 writers<br>median: …", with its
// 95% interval and n, p95, min, max, mean ± stddev, CV, outliers, the repetitions of a run
// measured to a precision, the point's extra figures and, when the point is noisy (its CV, or
// `machine` busy), the warning.
QString point_tooltip(const Group& group, const std::string& series, const Point& point,
                      const MachineNoise* machine = nullptr);

// A duration as a person reads it: "4.2 s", "3 min 05 s", "1 h 02 min".
QString format_duration(qint64 ms);

// Text order that reads numbers inside as numbers: "2 writers" < "10 writers", "P 2" < "P 16".
bool natural_less(std::string_view a, std::string_view b);

}  // namespace perflab::gui
