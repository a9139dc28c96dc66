// `--cases-file F.json`: cases with explicit input values (and cotangents), each a catalog case
// at the file's values (cases/case.hpp case_with_values; the format is docs/cases-files.md).
#pragma once

#include <string>
#include <vector>

#include "cases/case.hpp"

namespace gp::cli {

// The cases of one file, in its order. Throws UsageError naming the file, the entry and what is
// wrong: unreadable or malformed JSON, an unknown key, an unknown or large catalog case, values
// that do not fit the op (count, shape, a non-finite value, an index out of range).
std::vector<Case> read_cases_file(const std::string& path);

// Reads every file and adds its cases to the selection (harness/run/subjects.hpp add_given_cases).
// Called once when a command starts; the files are then passed on to child processes.
void load_cases_files(const std::vector<std::string>& paths);
// The files load_cases_files read, as absolute paths: what a child process is given.
const std::vector<std::string>& loaded_cases_files();
// `--cases-file P` for each of them, appended to a child process's arguments.
void append_cases_file_args(std::vector<std::string>& args);

}  // namespace gp::cli
