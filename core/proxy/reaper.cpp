// The reaper thread of the proxy: frees closed clients and large buffers off the loop.
#include "proxy/reaper.h"

#include "proxy/proxy_impl.h"

namespace perflab::proxy {

Reaper::~Reaper() {
  stop();
}

void Reaper::free(std::unique_ptr<Client> c, InBuf buf) {
  {
    std::lock_guard lock(mu_);
    if (c) clients_.push_back(std::move(c));
    if (buf.cap > 0) bufs_.push_back(std::move(buf));
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  cv_.notify_one();
}

void Reaper::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !clients_.empty() || !bufs_.empty(); });
    if (clients_.empty() && bufs_.empty()) return;  // stopped, nothing left
    auto clients_now = std::move(clients_);
    auto bufs_now = std::move(bufs_);
    clients_.clear();
    bufs_.clear();
    lock.unlock();
    clients_now.clear();
    bufs_now.clear();
    lock.lock();
  }
}

void Reaper::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

}  // namespace perflab::proxy
