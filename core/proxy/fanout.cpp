// A split command of very many keys (a million-key MGET, DEL or MSET): sent a batch of keys per
// loop turn, its replies merged batch by batch, so that other clients are served in between.
#include "proxy/proxy_impl.h"

namespace perflab::proxy {

// Starts sending av (a split command) in batches when it has more keys than one batch and a
// merge that batches can share; false to send it whole.
bool Proxy::Impl::start_fanout(Client& c, std::uint64_t seq, const CommandInfo& info,
                               const std::vector<std::string_view>& av) {
  const auto step = static_cast<std::size_t>(info.keys.step);
  if ((av.size() - 1) / step <= kFanoutBatchKeys) return false;
  if (info.merge != MergeMode::Values && info.merge != MergeMode::SumInt &&
      info.merge != MergeMode::AllOk)
    return false;
  Pending p;
  p.merge = info.merge;
  p.name = command_name(av);
  p.remaining = 1;  // batches to send
  p.batched = std::make_unique<Batched>();
  c.pending.push_back(std::move(p));
  c.fanout = std::make_unique<Fanout>();
  c.fanout->info = info;  // argv: process_input hands it the command's
  c.fanout->seq = seq;
  rests.fan_out(&c);
  update_events(c);
  return true;
}

// A batch of each fan-out, once the turn's events are served; then they rest
// kStreamersRestPerBusy times as long as that took, as streamers do: a fan-out takes at most an
// eighth of the loop's time, and the loop sleeps in between, woken at once by other requests.
void Proxy::Impl::serve_fanouts() {
  if (turn_ns < rests.fanouts_resume_ns()) return;
  flush_dirty();
  const std::int64_t start = wall_ns();
  auto list = rests.fanning();
  for (Client* c : list)
    if (!c->dead && c->fanout) send_batch(*c);
  const std::int64_t end = wall_ns();
  rests.rest_fanouts_until(end + (end - start) * kStreamersRestPerBusy);
}

// The next kFanoutBatchKeys keys, split by node into parts of their own. After the last batch
// the client's input goes on: its next commands are read.
void Proxy::Impl::send_batch(Client& c) {
  Fanout& f = *c.fanout;
  const auto step = static_cast<std::size_t>(f.info.keys.step);
  const std::size_t end = std::min(f.argv.size(), f.next + kFanoutBatchKeys * step);
  std::vector<std::string_view> av;
  av.reserve(1 + end - f.next);
  av.push_back(f.argv[0]);
  av.insert(av.end(), f.argv.begin() + static_cast<std::ptrdiff_t>(f.next),
            f.argv.begin() + static_cast<std::ptrdiff_t>(end));
  f.next = end;
  split_into_groups(av, step);
  const auto node_of = [&](std::size_t g) { return group_node(g); };
  const std::uint64_t seq = f.seq;
  {
    Pending& p = c.pending_at(seq);
    Batched::Batch b;
    b.first_part = static_cast<std::uint32_t>(p.parts.size());
    b.parts = static_cast<std::uint32_t>(scr.split.used);
    if (p.merge == MergeMode::Values) reply_order(scr.split, step, b.order);
    for (std::size_t n = 0; n < scr.split.by_node.size(); ++n)
      if (!scr.split.by_node[n].empty()) p.parts.emplace_back();
    p.remaining += static_cast<int>(scr.split.used);
    p.batched->batches.push_back(std::move(b));
  }
  st.fragments.add(scr.split.used);
  std::uint32_t part = c.pending_at(seq).batched->batches.back().first_part;
  for (std::size_t n = 0; n < scr.split.by_node.size(); ++n) {
    if (scr.split.by_node[n].empty()) continue;
    scr.text.clear();
    append_node_command(scr.text, av, scr.split.by_node[n], step);
    send_part(c, seq, part++, node_of(n), scr.text);
    if (c.dead) return;
  }
  if (f.next < f.argv.size()) return;
  // The last batch: the command is sent; the client reads on.
  c.pending_at(seq).remaining--;
  c.in.consume(f.consumed);
  c.fanout.reset();
  rests.done_fanning(&c);
  update_events(c);
  touch(c);
  process_input(c);
}

// Merges every batch whose parts have all replied, in order: their values join those merged
// before, their replies' memory goes.
void Proxy::Impl::merge_batches(Client& c, Pending& p) {
  Batched& bt = *p.batched;
  while (bt.merged < bt.batches.size()) {
    const Batched::Batch& b = bt.batches[bt.merged];
    scr.reply_views.clear();
    for (std::uint32_t i = 0; i < b.parts; ++i) {
      const Part& pt = p.parts[b.first_part + i];
      if (!pt.done) return;
      scr.reply_views.push_back(pt.reply);
    }
    merge_replies(p.merge, p.name, scr.reply_views, b.order, scr.text);
    const std::size_t held = bt.values.size();
    std::int64_t n = 0;
    const std::size_t eol = scr.text.find("\r\n");
    const bool number = eol != std::string::npos && scr.text.size() > 1 &&
                        parse_int64(std::string_view(scr.text).substr(1, eol - 1), n);
    if (!bt.error.empty()) {
      // an earlier batch failed: the command's reply is that error
    } else if (scr.text[0] == '-') {
      bt.error = scr.text;
    } else if (p.merge == MergeMode::Values && scr.text[0] == '*' && number) {
      bt.values.append(scr.text, eol + 2);
      bt.count += n;
    } else if (p.merge == MergeMode::SumInt && scr.text[0] == ':' && number) {
      bt.count += n;
    } else if (p.merge != MergeMode::AllOk || scr.text != "+OK\r\n") {
      append_error(bt.error, "ERR unexpected reply from a node to '" + p.name + "'");
    }
    if (!bt.error.empty()) std::string().swap(bt.values);
    c.stored_bytes = c.stored_bytes + bt.values.size() - held;
    for (std::uint32_t i = 0; i < b.parts; ++i) {
      Part& pt = p.parts[b.first_part + i];
      c.stored_bytes -= pt.reply.size();
      std::string().swap(pt.reply);
    }
    bt.merged++;
  }
}

// The reply of a batched command whose parts have all replied.
void Proxy::Impl::batched_reply(Client& c, Pending& p, std::string& out) {
  merge_batches(c, p);
  const Batched& bt = *p.batched;
  c.stored_bytes -= bt.values.size();
  out.clear();
  if (!bt.error.empty()) {
    out = bt.error;
  } else if (p.merge == MergeMode::Values) {
    append_array_header(out, bt.count);
    out.append(bt.values);
  } else if (p.merge == MergeMode::SumInt) {
    append_integer(out, bt.count);
  } else {
    append_status(out, "OK");
  }
}

}  // namespace perflab::proxy
