#pragma once
// Ctrl +, Ctrl − and Ctrl 0: the window's fonts and its charts' fonts larger, smaller or back
// to their size, for a room; the scale is remembered in the settings ("view/font_scale").
#include <vector>

#include <QFont>
#include <QObject>

class QAction;
class QSettings;
class QWidget;

namespace perflab::gui {

class ChartPanel;

class FontZoom : public QObject {
  Q_OBJECT
 public:
  // Applies the remembered scale to `window` and `panels` at once.
  FontZoom(QWidget* window, QSettings* settings, std::vector<ChartPanel*> panels);

  double scale() const { return scale_; }
  void setScale(double scale);  // kept within [kSteps.front(), kSteps.back()], applied, remembered
  void zoomIn();                // the next step up
  void zoomOut();               // the next step down
  // The View menu's actions: larger (Ctrl++, Ctrl+=), smaller (Ctrl+-), as it was (Ctrl+0).
  std::vector<QAction*> actions() const { return actions_; }

  static constexpr double kSteps[] = {0.7, 0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5};

 private:
  QWidget* window_;
  QSettings* settings_;
  std::vector<ChartPanel*> panels_;
  QFont base_;  // the window's font at scale 1
  double scale_ = 1.0;
  std::vector<QAction*> actions_;
};

}  // namespace perflab::gui
