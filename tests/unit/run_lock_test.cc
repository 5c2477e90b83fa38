#include "src/pipeline/run_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "src/core/atomic_file.h"
#include "src/pipeline/run_folder.h"
#include "tests/unit/temp_dir.h"

namespace llmpo::pipeline {
namespace {
namespace fs = std::filesystem;

// The pid of a process that has exited and been reaped: nobody has it now
// (pids are not reused this quickly).
long DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

TEST(RunLock, WritesOwnerAndRemovesTheFileOnRelease) {
  testing::TempDir dir;
  auto lock = RunLock::Acquire(dir.path());
  ASSERT_TRUE(lock.ok()) << lock.error().Render();
  EXPECT_TRUE(lock->note().empty());
  auto text = ReadWholeFile(dir.path() / kRunLockName);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find(fmt::format("pid {}\n", getpid())), std::string::npos) << *text;
  EXPECT_NE(text->find("started "), std::string::npos) << *text;
  LockOwner owner;
  EXPECT_EQ(ProbeRunLock(dir.path(), &owner), LockState::kHeld);
  EXPECT_EQ(owner.pid, getpid());
  lock->Release();
  EXPECT_FALSE(fs::exists(dir.path() / kRunLockName));
  EXPECT_EQ(ProbeRunLock(dir.path()), LockState::kFree);
}

TEST(RunLock, SecondClaimWhileHeldIsRefused) {
  testing::TempDir dir;
  auto first = RunLock::Acquire(dir.path());
  ASSERT_TRUE(first.ok());
  auto second = RunLock::Acquire(dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ExitStatus::kUsage);
  const std::string text = second.error().Render();
  EXPECT_NE(text.find("in use by another run"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("pid {}", getpid())), std::string::npos) << text;
  EXPECT_NE(text.find("hydra.run.dir"), std::string::npos) << text;
  // The refused claim left the holder's file alone.
  EXPECT_TRUE(fs::exists(dir.path() / kRunLockName));
  first->Release();
  EXPECT_TRUE(RunLock::Acquire(dir.path()).ok());
}

TEST(RunLock, FlockHeldByAnotherProcessCountsAsHeldWhateverTheFileSays) {
  testing::TempDir dir;
  // As `flock FILE sleep` would: the file names a dead pid, but its flock is held.
  dir.Write(kRunLockName, fmt::format("pid {}\n", DeadPid()));
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t holder = fork();
  if (holder == 0) {
    const int fd = open((dir.path() / kRunLockName).c_str(), O_RDONLY);
    flock(fd, LOCK_EX);
    (void)!write(pipe_fds[1], "x", 1);
    sleep(30);  // until the parent kills it
    _exit(0);
  }
  char c;
  ASSERT_EQ(read(pipe_fds[0], &c, 1), 1);
  EXPECT_EQ(ProbeRunLock(dir.path()), LockState::kHeld);
  EXPECT_FALSE(RunLock::Acquire(dir.path()).ok());
  kill(holder, SIGKILL);
  int status = 0;
  waitpid(holder, &status, 0);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  EXPECT_EQ(ProbeRunLock(dir.path()), LockState::kStale);
}

TEST(RunLock, StaleLockOfADeadRunIsTakenOverWithANote) {
  testing::TempDir dir;
  const long dead = DeadPid();
  dir.Write(kRunLockName, fmt::format("pid {}\nstart_ticks 1\nstarted 2026-01-01T00:00:00.000Z\n", dead));
  LockOwner owner;
  EXPECT_EQ(ProbeRunLock(dir.path(), &owner), LockState::kStale);
  EXPECT_EQ(owner.pid, dead);
  EXPECT_EQ(owner.started, "2026-01-01T00:00:00.000Z");
  auto lock = RunLock::Acquire(dir.path());
  ASSERT_TRUE(lock.ok()) << lock.error().Render();
  EXPECT_NE(lock->note().find(fmt::format("no longer running (pid {}", dead)), std::string::npos) << lock->note();
  auto text = ReadWholeFile(dir.path() / kRunLockName);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind(fmt::format("pid {}\n", getpid()), 0), 0u) << *text;
  EXPECT_EQ(ProbeRunLock(dir.path()), LockState::kHeld);
}

TEST(RunLock, LiveOwnerWithoutFlockIsHeldButAReusedPidIsNot) {
  // Our own pid, start time unknown: a live run (e.g. on a file system without flock).
  LockOwner me{getpid(), 0, ""};
  EXPECT_TRUE(OwnerAlive(me));
  LockOwner reused{getpid(), 1, ""};  // same pid, another start time
  EXPECT_FALSE(OwnerAlive(reused));
  LockOwner dead{DeadPid(), 0, ""};
  EXPECT_FALSE(OwnerAlive(dead));
  EXPECT_FALSE(OwnerAlive(LockOwner{}));
}

TEST(RunLock, RefusesASymlinkInTheWay) {
  testing::TempDir dir;
  dir.Write("target", "x");
  fs::create_symlink(dir.path() / "target", dir.path() / kRunLockName);
  auto lock = RunLock::Acquire(dir.path());
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.error().kind, ExitStatus::kFailure);
  EXPECT_EQ(*ReadWholeFile(dir.path() / "target"), "x");
}

TEST(RunFolderClaim, UniqueFolderGetsASuffixWhenTaken) {
  testing::TempDir dir;
  const fs::path base = dir.path() / "out" / "20261123-090642";
  auto a = RunFolder::Create(base, {}, {.unique = true});
  auto b = RunFolder::Create(base, {}, {.unique = true});
  auto c = RunFolder::Create(base, {}, {.unique = true});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->dir().filename(), "20261123-090642");
  EXPECT_EQ(b->dir().filename(), "20261123-090642-2");
  EXPECT_EQ(c->dir().filename(), "20261123-090642-3");
}

TEST(RunFolderClaim, FixedFolderHeldByALiveRunIsRefused) {
  testing::TempDir dir;
  auto a = RunFolder::Create(dir.path() / "x", {});
  ASSERT_TRUE(a.ok());
  auto b = RunFolder::Create(dir.path() / "x", {});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().kind, ExitStatus::kUsage);
  EXPECT_NE(b.error().Render().find("in use by another run"), std::string::npos);
  // The holder's lock is untouched, and goes when it is done.
  EXPECT_EQ(ProbeRunLock(dir.path() / "x"), LockState::kHeld);
  ASSERT_TRUE(a->WriteManifest(RunStatus::kOk).ok());
  a->ReleaseLock();
  EXPECT_EQ(ProbeRunLock(dir.path() / "x"), LockState::kFree);
  // Finished: the folder holds a run now, still refused, for that reason.
  auto c = RunFolder::Create(dir.path() / "x", {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().Render().find("already holds a run"), std::string::npos);
  EXPECT_EQ(ProbeRunLock(dir.path() / "x"), LockState::kFree);
}

TEST(RunFolderClaim, AFolderHoldingSomeoneElsesFilesIsRefusedAndLeftAlone) {
  testing::TempDir dir;
  dir.Write("x/notes.txt", "before\n");
  dir.Write("x/ncu/profile.ncu-rep", "a user's report\n");
  auto run = RunFolder::Create(dir.path() / "x", {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().kind, ExitStatus::kUsage);
  EXPECT_NE(run.error().message.find("is not empty (ncu, notes.txt)"), std::string::npos) << run.error().message;
  EXPECT_EQ(*ReadWholeFile(dir.path() / "x/ncu/profile.ncu-rep"), "a user's report\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x" / kRunLockName));  // the claim is given back
}

TEST(RunFolderClaim, ArtifactsLeaveOutTheLock) {
  testing::TempDir dir;
  auto run = RunFolder::Create(dir.path() / "x", {});
  ASSERT_TRUE(run.ok());
  dir.Write("x/ncu/new.csv", "c,d\n");
  for (const char* f : {"ncu/new.csv", kRunLockName}) run->RecordArtifact(f);
  ASSERT_TRUE(run->WriteArtifact("config.yaml", "a: 1\n").ok());
  EXPECT_EQ(run->artifacts(), (std::vector<std::string>{"ncu/new.csv", "config.yaml"}));
}

}  // namespace
}  // namespace llmpo::pipeline
