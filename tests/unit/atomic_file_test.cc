#include "src/core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <new>

#include "tests/unit/temp_dir.h"

namespace llmpo {
namespace {

TEST(WriteFileAtomically, WritesReplacesAndLeavesNoTempFile) {
  testing::TempDir dir;
  const auto path = dir.path() / "run.json";
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  EXPECT_EQ(*ReadWholeFile(path), "second");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(WriteFileAtomically, MissingFolderIsAnError) {
  testing::TempDir dir;
  auto status = WriteFileAtomically(dir.path() / "no" / "such" / "file", "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("cannot create"), std::string::npos);
}

TEST(ReadWholeFile, MissingFileIsAnInputError) {
  auto r = ReadWholeFile("/nonexistent/llmpo");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ExitStatus::kInput);
}

// A FIFO (no writer) would block a plain open; a device would never end.
TEST(ReadWholeFile, FifoAndDeviceAreInputErrorsNotReads) {
  testing::TempDir dir;
  const auto fifo = dir.path() / "config.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = ReadWholeFile(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.error().kind, ExitStatus::kInput);
  EXPECT_NE(from_fifo.error().message.find("not a regular file"), std::string::npos);
  const auto link = dir.path() / "env.json";
  std::filesystem::create_symlink("/dev/zero", link);
  auto from_device = ReadWholeFile(link);
  ASSERT_FALSE(from_device.ok());
  EXPECT_EQ(from_device.error().kind, ExitStatus::kInput);
}

}  // namespace
}  // namespace llmpo

namespace llmpo {
namespace {

namespace fs = std::filesystem;

std::size_t CountEntries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(WriteFileAtomically, RefusesADestinationThatIsASymlink) {
  testing::TempDir dir;
  dir.Write("outside/secret", "keep");
  fs::create_directory(dir.path() / "out");
  fs::create_symlink(dir.path() / "outside" / "secret", dir.path() / "out" / "kernels.md");
  for (bool streamed : {false, true}) {
    auto status = streamed
                      ? WriteFileAtomically(dir.path() / "out" / "kernels.md", [](std::ostream& out) { out << "new"; })
                      : WriteFileAtomically(dir.path() / "out" / "kernels.md", "new");
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().kind, ExitStatus::kFailure);
    EXPECT_NE(status.error().message.find("is a symbolic link"), std::string::npos) << status.error().message;
    EXPECT_EQ(*ReadWholeFile(dir.path() / "outside" / "secret"), "keep");
    EXPECT_TRUE(fs::is_symlink(dir.path() / "out" / "kernels.md"));
    EXPECT_EQ(CountEntries(dir.path() / "out"), 1u);  // no temp file left
  }
}

TEST(WriteFileAtomically, TempNamesAreUnpredictableAndNeverFollowed) {
  testing::TempDir dir;
  dir.Write("outside/secret", "keep");
  fs::create_directory(dir.path() / "out");
  // The names the old writer used (<file>.tmp.<pid>) and a few guesses.
  const fs::path target = dir.path() / "out" / "run.json";
  for (std::string guess : {std::to_string(::getpid()), std::string("0"), std::string("1")}) {
    fs::path planted = target;
    planted += ".tmp." + guess;
    fs::create_symlink(dir.path() / "outside" / "secret", planted);
  }
  ASSERT_TRUE(WriteFileAtomically(target, "new").ok());
  ASSERT_TRUE(WriteFileAtomically(target, [](std::ostream& out) { out << "streamed"; }).ok());
  EXPECT_EQ(*ReadWholeFile(target), "streamed");
  EXPECT_EQ(*ReadWholeFile(dir.path() / "outside" / "secret"), "keep");
  EXPECT_EQ(CountEntries(dir.path() / "out"), 4u);  // run.json and the three planted links
}

TEST(WriteFileAtomically, AWriterThatThrowsLeavesNoTempFile) {
  testing::TempDir dir;
  EXPECT_THROW((void)WriteFileAtomically(dir.path() / "report.json", [](std::ostream&) { throw std::bad_alloc(); }),
               std::bad_alloc);
  EXPECT_EQ(CountEntries(dir.path()), 0u);
}

TEST(WriteFileAtomically, StreamsLargeOutput) {
  testing::TempDir dir;
  const std::string line(1000, 'x');
  ASSERT_TRUE(WriteFileAtomically(dir.path() / "big", [&](std::ostream& out) {
                for (int i = 0; i < 300; ++i) out << line << '\n';
              }).ok());
  EXPECT_EQ(fs::file_size(dir.path() / "big"), 300u * 1001u);
}

TEST(CreateFoldersNoFollow, RefusesLinksInTheFoldersItOwns) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "outside");
  fs::create_directories(dir.path() / "out");
  fs::create_directory_symlink(dir.path() / "outside", dir.path() / "out" / "regions");
  auto status = CreateFoldersNoFollow(dir.path() / "out" / "regions" / "A", "regions/A");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("is a symbolic link"), std::string::npos) << status.error().message;
  EXPECT_EQ(CountEntries(dir.path() / "outside"), 0u);
  // A plain file in the way is refused too; real folders are fine.
  dir.Write("out2/regions", "file");
  EXPECT_FALSE(CreateFoldersNoFollow(dir.path() / "out2" / "regions" / "A", "regions/A").ok());
  ASSERT_TRUE(CreateFoldersNoFollow(dir.path() / "out3" / "ncu" / "regions", "ncu/regions").ok());
  ASSERT_TRUE(CreateFoldersNoFollow(dir.path() / "out3" / "ncu" / "regions", "ncu/regions").ok());
  EXPECT_TRUE(fs::is_directory(dir.path() / "out3" / "ncu" / "regions"));
  EXPECT_FALSE(CreateFoldersNoFollow(dir.path() / "x", "../x").ok());
}

TEST(WriteFileNoFollow, WritesReplacesAndRefusesLinks) {
  testing::TempDir dir;
  const fs::path file = dir.path() / "report.md";
  ASSERT_TRUE(WriteFileNoFollow(file, "a long first text").ok());
  ASSERT_TRUE(WriteFileNoFollow(file, "short").ok());
  EXPECT_EQ(*ReadWholeFile(file), "short");
  dir.Write("secret", "keep");
  fs::create_symlink(dir.path() / "secret", dir.path() / "link.md");
  auto link = WriteFileNoFollow(dir.path() / "link.md", "x");
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message.find("is a symbolic link"), std::string::npos) << link.error().message;
  fs::create_hard_link(dir.path() / "secret", dir.path() / "hard.md");
  auto hard = WriteFileNoFollow(dir.path() / "hard.md", "x");
  ASSERT_FALSE(hard.ok());
  EXPECT_NE(hard.error().message.find("hard links"), std::string::npos) << hard.error().message;
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(WriteFileNoFollow(dir.path() / "fifo", "x").ok());  // refused, without blocking
  EXPECT_EQ(*ReadWholeFile(dir.path() / "secret"), "keep");
}

}  // namespace
}  // namespace llmpo
