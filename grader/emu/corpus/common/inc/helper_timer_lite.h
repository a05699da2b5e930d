// A host stopwatch in the style of the CUDA samples' helper_timer.h (written for this corpus).
#ifndef HELPER_TIMER_LITE_H
#define HELPER_TIMER_LITE_H

#include <sys/time.h>

class StopWatch {
 public:
  void start() { gettimeofday(&t0_, 0); running_ = true; }
  void stop() {
    struct timeval t1;
    gettimeofday(&t1, 0);
    total_ms_ += (t1.tv_sec - t0_.tv_sec) * 1000.0 + (t1.tv_usec - t0_.tv_usec) / 1000.0;
    running_ = false;
  }
  void reset() { total_ms_ = 0; }
  double ms() const { return total_ms_; }

 private:
  struct timeval t0_;
  double total_ms_ = 0;
  bool running_ = false;
};

#endif  // HELPER_TIMER_LITE_H
