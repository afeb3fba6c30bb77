#pragma once
// A QApplication for the duration of a command that draws (chart, report), on the offscreen
// platform unless the user chose one: the CLI never needs a display.
#include <memory>

#include <QApplication>

namespace perflab {

class AppGuard {
 public:
  AppGuard();

 private:
  int argc_ = 1;
  char name_[12] = "perflab-cli";
  char* argv_[2] = {name_, nullptr};
  std::unique_ptr<QApplication> app_;
};

}  // namespace perflab
