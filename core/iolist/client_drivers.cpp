// The IO-list experiment's clients of a many-client point, driven as pool_driver says, and the
// client's own CPU beside the point's times: is it the client that sets them?
#include <algorithm>
#include <thread>

#include "common/figure_format.h"
#include "iolist/async_pool.h"
#include "iolist/iolist_run.h"

namespace perflab::iolist {

std::unique_ptr<ClientDriver> make_clients(IoListRun& r, std::size_t n,
                                           const std::vector<PgTarget>& targets) {
  if (r.settings.pool_async)
    return std::make_unique<AsyncPool>(n, targets, r.ids(), r.ctx.stop_token());
  return std::make_unique<ClientPool>(n, targets, r.ids(), r.ctx.stop_token());
}

WriterDrivers writer_drivers(IoListRun& r, std::size_t n, const PgTarget& target,
                             const std::vector<Variant>& variants) {
  WriterDrivers w;
  ClientDriver* round_trips = nullptr;
  ClientDriver* pipeline = nullptr;
  for (const Variant& v : variants) {
    const bool piped = v.options.transport == Transport::Pipeline && r.settings.pool_async;
    ClientDriver*& d = piped ? pipeline : round_trips;
    if (!d) {
      // The event-driven pool sends no pipeline: a thread per writer for those variants.
      w.owned.push_back(piped ? std::make_unique<ClientPool>(n, target, r.ids(), r.ctx.stop_token())
                              : make_clients(r, n, {target}));
      d = w.owned.back().get();
    }
    w.of_variant.push_back(d);
  }
  return w;
}

std::string driver_text(bool async) {
  return async ? "Each client is a connection; a thread per core drives its share of them with "
                 "libpq's asynchronous API (as pgbench -j does), pool_driver=async."
               : "Each client is a thread of its own with its connection, pool_driver=threads.";
}

double machine_cores() {
  return double(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<double> machine_shares(const Samples& total) {
  std::vector<double> out;
  for (std::size_t i = 0; i < total.wall.size() && i < total.cpu.size(); ++i)
    if (total.wall[i] > 0) out.push_back(total.cpu[i] / (total.wall[i] * machine_cores()));
  return out;
}

void add_client_use(Point& p, const Samples& total, std::size_t clients, std::size_t threads) {
  if (total.cpu.empty() || clients == 0) return;
  std::vector<double> per_op;
  for (double c : total.cpu) per_op.push_back(c / double(clients));
  p.extra["client_cpu_per_op_us"] = summarize(per_op).median;
  p.extra["client_machine_share_pct"] = 100.0 * summarize(machine_shares(total)).median;
  p.extra["client_threads"] = double(threads);
  std::vector<double> waiting;  // the same repetitions as the wall times when every one was read
  for (std::size_t i = 0; i < total.wait.size() && total.wait.size() == total.wall.size(); ++i)
    if (total.wall[i] > 0 && threads > 0)
      waiting.push_back(total.wait[i] / (total.wall[i] * double(threads)));
  if (!waiting.empty()) p.extra["client_cpu_wait_pct"] = 100.0 * summarize(waiting).median;
  // Pooled over the operations: a tick is a sample of where a CPU was, and their sums are
  // unbiased where one short operation's are not.
  double all = 0, idle = 0;
  for (std::size_t i = 0; i < total.machine_ticks.size(); ++i)
    all += total.machine_ticks[i], idle += total.idle_ticks[i];
  if (all > 0) p.extra["machine_idle_pct"] = 100.0 * idle / all;
}

void client_cpu_findings(RunContext& ctx, const ClientCpuSpec& spec, std::int64_t n,
                         const Samples& total) {
  std::vector<double> per_op, machine;
  for (double c : total.cpu) per_op.push_back(c / double(n));
  for (double w : total.wall) machine.push_back(w * machine_cores());
  if (per_op.empty()) return;
  if (!spec.cpu_id.empty())
    ctx.add_finding(figure_finding(
        {spec.cpu_id, spec.context, "the client's CPU time per " + spec.op, "us", spec.group},
        summarize(per_op).median));
  ShareSpec share{
      spec.share_id, spec.context, "used by the client",
      "the machine's CPU time (wall time x " + std::to_string(int(machine_cores())) + " cores)"};
  share.group = spec.group;
  if (auto f = share_finding(share, total.cpu, machine)) ctx.add_finding(std::move(*f));
  const auto& ticks = total.machine_ticks;
  if (spec.idle_id.empty() || ticks.empty() ||
      std::any_of(ticks.begin(), ticks.end(), [](double t) { return t < kIdleMinTicks; }))
    return;
  ShareSpec idle{spec.idle_id, spec.context, "idle, no thread ready to run",
                 "the machine's CPU time (clock ticks of its " +
                     std::to_string(int(machine_cores())) + " cores, /proc/stat)"};
  idle.group = spec.group;
  if (auto f = share_finding(idle, total.idle_ticks, ticks)) ctx.add_finding(std::move(*f));
}

}  // namespace perflab::iolist
