#pragma once
// Freeing large buffers off the proxy's loop: unmapping an evicted client's hundreds of
// megabytes takes milliseconds that every other client would wait. A thread of its own, started
// with the first thing handed to it, frees what it is handed until stopped.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "proxy/in_buf.h"

namespace perflab::proxy {

struct Client;

class Reaper {
 public:
  Reaper() = default;
  ~Reaper();  // stops it
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;

  // Frees a closed client (its buffers, its backends' connections' buffers) and a buffer, either
  // of which may be empty, on the reaper's thread.
  void free(std::unique_ptr<Client> c, InBuf buf);
  // Frees what is left, then ends the thread. Nothing may be handed to it afterwards.
  void stop();

 private:
  void run();

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Client>> clients_;
  std::vector<InBuf> bufs_;
  bool stop_ = false;
};

}  // namespace perflab::proxy
