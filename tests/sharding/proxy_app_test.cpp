// The perflab-proxy executable: its command line, serving a Redis client, clean SIGTERM.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "servers.h"
#include "targets/managed.h"
#include "targets/redis.h"

using namespace perflab;

namespace {

std::string nodes_arg() {
  RedisTarget t = test::shared_targets().redis(2);
  std::string s = "--nodes=";
  for (std::size_t i = 0; i < 2; ++i) {
    if (i) s += ',';
    s += t.nodes[i].address();
  }
  return s;
}

// Runs the proxy with args; returns its exit status and what it wrote to stderr.
int run_proxy(const std::vector<std::string>& args, std::string& err) {
  std::string cmd = PERFLAB_PROXY_BIN;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " 2>&1 >/dev/null";
  FILE* f = ::popen(cmd.c_str(), "r");
  char buf[512];
  std::size_t n;
  err.clear();
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) err.append(buf, n);
  int st = ::pclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(ProxyApp, BadArgumentsExitWith2AndOneLine) {
  const std::string nodes = nodes_arg();
  const std::vector<std::vector<std::string>> bad = {
      {"--port", "8090"},                         // no nodes
      {"--port", "x", nodes},                     // not a number
      {"--port", "8090", nodes, "--write=lazy"},  // unknown strategy
      {"--port", "8090", nodes, "--nodelay=maybe"},
      {"--port", "8090", nodes, "--log-level=loud"},
      {"--port", "8090", "--nodes=127.0.0.1:notaport"},
      {"--port", "8090", nodes, "--frobnicate"},
      {"--port", "8090", nodes, "--bind", "not-an-address"},
  };
  for (const auto& args : bad) {
    std::string err;
    EXPECT_EQ(run_proxy(args, err), 2) << args.back() << ": " << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_EQ(err.rfind("perflab-proxy: ", 0), 0u) << err;
  }
  std::string out;
  EXPECT_EQ(run_proxy({"--help"}, out), 0);
}

TEST(ProxyApp, ServesAndStopsOnSigterm) {
  const int port = free_loopback_port();
  const std::string log = "/tmp/" + test::unique_name("perflab-proxy-log") + ".txt";
  std::vector<std::string> args = {
      PERFLAB_PROXY_BIN,   "--port",        std::to_string(port), nodes_arg(),
      "--write=per-reply", "--nodelay=off", "--log-level=debug"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    try {
      RedisClient c({"127.0.0.1", port, {}}, std::chrono::milliseconds(200));
      up = true;
      EXPECT_EQ(c.command({"SET", "app:k", "v"}).str, "OK");
      EXPECT_EQ(c.command({"MGET", "app:k", "app:none"}).elements.at(0).str, "v");
      EXPECT_EQ(c.command({"DEL", "app:k"}).integer, 1);
    } catch (const RedisError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  EXPECT_TRUE(up);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  EXPECT_NE(text.find("[info] listening on 127.0.0.1:" + std::to_string(port)), std::string::npos)
      << text;
  EXPECT_NE(text.find("write=per-reply, nodelay=off"), std::string::npos) << text;
  EXPECT_NE(text.find("[debug] client"), std::string::npos) << text;
  EXPECT_NE(text.find("shutting down"), std::string::npos) << text;
  std::filesystem::remove(log);
}

TEST(ProxyApp, HelpVersionAndInlineValues) {
  std::string out;
  ASSERT_EQ(run_proxy({"--version"}, out), 0);
  std::string cmd = std::string(PERFLAB_PROXY_BIN) + " --help";
  FILE* f = ::popen(cmd.c_str(), "r");
  char buf[4096];
  std::string help;
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) help.append(buf, n);
  EXPECT_EQ(::pclose(f), 0);
  for (const char* opt : {"--port", "--nodes", "--write", "--nodelay", "--backend-connections",
                          "--log-level", "--max-bulk-len", "PERFLAB_PROXY_PASSWORD"})
    EXPECT_NE(help.find(opt), std::string::npos) << opt;
  // --opt value and --opt=value alike; a missing value is a usage error.
  EXPECT_EQ(run_proxy({"--port=70000", nodes_arg()}, out), 2);
  EXPECT_NE(out.find("--port"), std::string::npos) << out;
  EXPECT_EQ(run_proxy({"--port", "8090", "--nodes"}, out), 2);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace
