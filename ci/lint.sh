#!/usr/bin/env bash
# The style gate, called by ci/test.sh: clang-format (the repository's .clang-format) must leave
# every C and C++ file of the project as it is, and clang-tidy (.clang-tidy) must find nothing in
# the translation units of the folders listed in TIDY_FOLDERS, compiled as the ci preset compiles
# them (build/ci/compile_commands.json; ci/build.sh makes it). Exit 1 naming each finding.
# Usage: ci/lint.sh [--format-only]
set -euo pipefail
cd "$(dirname "$0")/.."
# The folders kept clean so far; the others join as they are cleaned (their findings are listed
# by `python3 ci/tidy_groups.py build/ci . FOLDER`).
TIDY_FOLDERS=(results harness reports cli)

for tool in clang-format clang-tidy; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is missing: run ci/setup.sh" >&2; exit 2; }
done
status=0
mapfile -t sources < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.c')
# One clang-format process for every file (one per file took 9 s of process start-ups); each
# finding's line starts with its file's path.
mapfile -t unformatted < <(clang-format --dry-run -Werror "${sources[@]}" 2>&1 >/dev/null |
  sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: .*/\1/p' | sed "s|^$(pwd)/||" | sort -u)
if ((${#unformatted[@]})); then
  echo "lint: ${#unformatted[@]} file(s) differ from clang-format (clang-format -i FILE fixes them):"
  printf '  %s\n' "${unformatted[@]}"
  status=1
else
  echo "lint: clang-format: ${#sources[@]} files formatted"
fi
[[ "${1:-}" == --format-only ]] && exit $status

db=build/ci/compile_commands.json
if [[ ! -f "$db" ]]; then
  echo "lint: $db is missing: run ci/build.sh first" >&2
  exit 2
fi
# In groups of translation units that share their headers' parse (ci/tidy_groups.py says why).
if python3 ci/tidy_groups.py build/ci "$(pwd)" "${TIDY_FOLDERS[@]}" --jobs "$(nproc)"; then
  echo "lint: clang-tidy: no finding in ${TIDY_FOLDERS[*]}"
else
  echo "lint: clang-tidy found the above in ${TIDY_FOLDERS[*]} (.clang-tidy lists the checks)"
  status=1
fi
exit $status
