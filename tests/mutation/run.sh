#!/usr/bin/env bash
# Mutation testing of pbsim (docs/mutation.md): each mutant of tests/mutation/mutants.txt (one line of
# one source file changed: a sign flipped, a term dropped, a coefficient or an index off) is applied
# alone to a copy of the tree, built, and run against ctest. A mutant the suite fails on is killed;
# one it passes survives and must be explained (an equivalent mutant, or a missing test). A mutant
# whose pattern no longer matches exactly one line of its file is reported as stale, not counted.
#
#   tests/mutation/run.sh [-c COMMIT] [-l LIST] [-o REPORT.md] [-w WORKDIR] [-j JOBS] [-k] [-n] [-s] [ID ...]
#     -c COMMIT   tree to mutate (default HEAD; `git archive` of it, the repository is not touched)
#     -l LIST     mutant list (default tests/mutation/mutants.txt)
#     -o REPORT   also write the table (Markdown) there
#     -w WORKDIR  where the copy and its build live (default: a new mktemp -d; kept with -k)
#     -j JOBS     ctest and build parallelism (default 2)
#     -t FACTOR   multiply every test's TIMEOUT by FACTOR in the copy (default 4: a niced campaign on a
#                 loaded machine must not count a slow test as a kill; a mutant that loops still is)
#     -n          check the list only: which mutants are stale or ambiguous (no build)
#     -x REGEX    leave these tests out (ctest -E), e.g. one that fails on the unmutated tree for
#                 reasons of its own (say which in the report)
#     -s          skip the run of the unmutated suite (it must pass: otherwise every mutant is "killed")
#     -k          keep WORKDIR
#     ID ...      run only these mutants
# Run it niced (nice -n 19) on a shared machine. Exit status: 0 when at least 90% of the counted
# mutants are killed, 1 otherwise, 2 on a usage or setup error.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(git -C "$here" rev-parse --show-toplevel) || exit 2
commit=HEAD list=$here/mutants.txt report="" work="" jobs=2 keep=0 check_only=0 baseline=1 tfactor=4 exclude=""
while getopts "c:l:o:w:j:t:x:kns" opt; do
  case $opt in
    c) commit=$OPTARG ;;
    l) list=$OPTARG ;;
    o) report=$OPTARG ;;
    w) work=$OPTARG ;;
    j) jobs=$OPTARG ;;
    t) tfactor=$OPTARG ;;
    x) exclude=$OPTARG ;;
    k) keep=1 ;;
    n) check_only=1 ;;
    s) baseline=0 ;;
    *) sed -n '2,24p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
only=" $* "
[ -r "$list" ] || { echo "mutation: cannot read the mutant list $list" >&2; exit 2; }

# ---- the list: records of "key value" lines, a record starting at "mutant ID" ----
ids=() files=() finds=() repls=() whys=() hints=() equivs=() afters=() lines=()
parse_list() {
  local key val n=-1 line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}" # leading blanks
    [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
    key=${line%%[[:space:]]*}
    val=${line#"$key"}
    val="${val#"${val%%[![:space:]]*}"}"
    case $key in
      mutant) n=$((n + 1)); ids[n]=$val files[n]="" finds[n]="" repls[n]="" whys[n]="" hints[n]="" equivs[n]="" afters[n]="" ;;
      file) files[n]=$val ;;
      find) finds[n]=$val ;;
      after) afters[n]=$val ;;
      replace) repls[n]=$val ;;
      why) whys[n]=$val ;;
      tests) hints[n]=$val ;;
      equivalent) equivs[n]=$val ;;
      *) echo "mutation: $list: unknown key '$key' (mutant ${ids[n]:-?})" >&2; exit 2 ;;
    esac
  done <"$list"
}
parse_list
[ ${#ids[@]} -gt 0 ] || { echo "mutation: no mutants in $list" >&2; exit 2; }

# The line of file $1 to mutate: the one line containing the literal text $2, or with $3 (after)
# the first line containing $2 below the one line containing $3. Prints the line number, or
# "stale: <why>".
locate() {
  PAT="$2" AFT="$3" awk '
    { line[NR] = $0 }
    END {
      pat = ENVIRON["PAT"]; aft = ENVIRON["AFT"]; start = 1
      if (aft != "") {
        na = 0
        for (i = 1; i <= NR; i++) if (index(line[i], aft)) { na++; if (na == 1) start = i + 1 }
        if (na != 1) { print "stale: the after-pattern matches " na " lines"; exit }
        for (i = start; i <= NR; i++) if (index(line[i], pat)) { print i; exit }
        print "stale: pattern not found after the after-pattern"; exit
      }
      n = 0
      for (i = 1; i <= NR; i++) if (index(line[i], pat)) { n++; at = i }
      if (n == 1) print at; else if (n == 0) print "stale: pattern not found"; else print "stale: pattern matches " n " lines"
    }' "$1"
}
# Replaces the first occurrence of the literal $3 by $4 on line $2 of file $1.
apply_mutation() {
  PAT="$3" REP="$4" awk -v ln="$2" '{ if (NR == ln) { i = index($0, ENVIRON["PAT"]);
    if (i) $0 = substr($0, 1, i - 1) ENVIRON["REP"] substr($0, i + length(ENVIRON["PAT"])) } print }' "$1" >"$1.mutant" &&
    mv "$1.mutant" "$1"
}

# ---- the copy of the tree ----
if [ -z "$work" ]; then work=$(mktemp -d "${TMPDIR:-/tmp}/pbsim-mutation.XXXXXX") || exit 2; fi
src=$work/src build=$work/build
cleanup() { [ $keep = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
rm -rf "$src" && mkdir -p "$src" && git -C "$root" archive "$commit" | tar -x -C "$src" || exit 2
rev=$(git -C "$root" rev-parse --short "$commit")

status=() killer=()
for n in "${!ids[@]}"; do
  f=$src/${files[n]}
  if [ ! -f "$f" ]; then status[n]=stale killer[n]="no file ${files[n]}"; continue; fi
  if [ -z "${finds[n]}" ] || [ "${finds[n]}" = "${repls[n]}" ]; then
    echo "mutation: mutant ${ids[n]} needs a find and a different replace" >&2; exit 2
  fi
  at=$(locate "$f" "${finds[n]}" "${afters[n]}")
  case $at in
    stale:*) status[n]=stale killer[n]=${at#stale: } ;;
    *) status[n]=pending lines[n]=$at ;;
  esac
done
if [ $check_only = 1 ]; then
  for n in "${!ids[@]}"; do [ "${status[n]}" = stale ] && echo "stale: ${ids[n]} (${files[n]}: ${killer[n]})"; done
  echo "${#ids[@]} mutants"
  exit 0
fi

export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$work} CCACHE_NOHASHDIR=1 OPENBLAS_NUM_THREADS=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
echo "mutation: $rev in $work (list $list)"
cmake -S "$src" -B "$build" "${launcher[@]}" >"$work/configure.log" 2>&1 || { echo "configure failed: $work/configure.log" >&2; exit 2; }
cmake --build "$build" -j "$jobs" >"$work/build.log" 2>&1 || { echo "the unmutated tree does not build: $work/build.log" >&2; exit 2; }

# Multiplies the TIMEOUT of every test in the generated CTestTestfile.cmake files by tfactor, once
# per generated file (marked by a first-line comment; a re-configure rewrites them unmarked).
scale_timeouts() {
  local f
  while IFS= read -r f; do
    head -n 1 "$f" | grep -q "^# timeouts scaled by run.sh" && continue
    perl -pi -e 's/TIMEOUT "(\d+(?:\.\d+)?)"/sprintf("TIMEOUT \"%d\"", $1 * '"$tfactor"')/ge' "$f"
    printf '%s\n' "# timeouts scaled by run.sh" | cat - "$f" >"$f.scaled" && mv "$f.scaled" "$f"
  done < <(find "$build" -name CTestTestfile.cmake)
}

# Runs ctest (extra arguments: a selection) over the suite CI runs (the fuzz, valgrind and long labels
# are left out: a hint like "test_fem" would also match valgrind.test_fem); prints the first failed test's name (with
# "(timeout)" when it ran out of time), nothing if all passed. --stop-on-failure ends a killed
# mutant's run early.
run_ctest() {
  local out rc name
  scale_timeouts
  local ex=()
  [ -n "$exclude" ] && ex=(-E "$exclude")
  out=$(ctest --test-dir "$build" -j "$jobs" -LE "fuzz|valgrind|long" --stop-on-failure --output-on-failure --timeout $((600 * tfactor)) "${ex[@]}" "$@" 2>&1)
  rc=$?
  echo "$out" >>"$work/ctest.log"
  [ $rc = 0 ] && return
  name=$(echo "$out" | awk '/The following tests FAILED/ { f = 1; next } f && $2 == "-" { print $3 ($4 == "(Timeout)" ? " (timeout)" : ""); exit }')
  echo "${name:-"(ctest exit status $rc)"}"
}

# A kill must reproduce: the failed test runs again alone. One that passes then (a wall-clock limit
# or a timeout under load) is noted and the suite runs on without it, at most three times; prints
# the confirmed killer (with the unconfirmed ones noted), nothing when none is left.
confirm_kill() {
  local k=$1 flaky="" tries=0
  while [ -n "$k" ]; do
    [ -n "$(run_ctest -R "^${k%% *}\$")" ] && break # reproduced: a kill
    flaky+="${flaky:+, }${k%% *}"
    exclude="${exclude:+$exclude|}^${k%% *}\$"
    tries=$((tries + 1))
    if [ $tries -gt 3 ]; then
      echo "(unconfirmed: $flaky failed in the suite, passed alone)"
      return
    fi
    k=$(run_ctest)
  done
  [ -n "$k" ] && echo "$k${flaky:+ (did not reproduce alone: $flaky)}"
}

if [ $baseline = 1 ]; then
  echo "mutation: the unmutated suite first"
  k=$(run_ctest)
  [ -z "$k" ] || { echo "mutation: the unmutated tree fails $k (log: $work/ctest.log); nothing to measure" >&2; keep=1; exit 2; }
fi

total_start=$(date +%s)
for n in "${!ids[@]}"; do
  [ "$only" != "  " ] && [[ "$only" != *" ${ids[n]} "* ]] && { status[n]=skipped; continue; }
  [ "${status[n]}" = pending ] || { echo "  ${ids[n]}: ${status[n]} (${killer[n]})"; continue; }
  f=$src/${files[n]}
  cp -p "$f" "$work/orig"
  apply_mutation "$f" "${lines[n]}" "${finds[n]}" "${repls[n]}"
  if cmp -s "$f" "$work/orig"; then echo "mutation: mutant ${ids[n]} changed nothing" >&2; exit 2; fi
  t0=$(date +%s)
  if ! cmake --build "$build" -j "$jobs" >"$work/mutant.log" 2>&1; then
    status[n]=no-build killer[n]="does not compile"
  else
    k=""
    [ -n "${hints[n]}" ] && k=$(run_ctest -R "${hints[n]}")
    [ -z "$k" ] && k=$(run_ctest)
    k=$(confirm_kill "$k")
    case $k in
      "") status[n]=survived killer[n]="" ;;
      "(unconfirmed"*) status[n]=survived killer[n]=$k ;; # counted against the suite
      *) status[n]=killed killer[n]=$k ;;
    esac
  fi
  cp "$work/orig" "$f" && touch "$f"
  echo "  ${ids[n]}: ${status[n]} ${killer[n]} ($(($(date +%s) - t0)) s)"
done
# leave the copy built as it was
cmake --build "$build" -j "$jobs" >/dev/null 2>&1

# ---- the table ----
killed=0 counted=0
table="| mutant | file | status | killed by / why it survives | what it breaks |
| --- | --- | --- | --- | --- |"
for n in "${!ids[@]}"; do
  s=${status[n]}
  [ "$s" = skipped ] && continue
  [ "$s" = killed ] && killed=$((killed + 1))
  [ "$s" = killed ] || [ "$s" = survived ] && counted=$((counted + 1))
  note=${killer[n]}
  [ "$s" = survived ] && note=${equivs[n]:-${killer[n]:-"(unexplained)"}}
  table+="
| ${ids[n]} | ${files[n]} | $s | $note | ${whys[n]} |"
done
pct=0
[ $counted -gt 0 ] && pct=$((100 * killed / counted))
summary="$killed of $counted mutants killed ($pct%) on $rev, $(($(date +%s) - total_start)) s; stale and non-building mutants are not counted."
[ -n "$exclude" ] && summary+=" Tests left out: $exclude."
echo
echo "$table"
echo
echo "$summary"
if [ -n "$report" ]; then printf '%s\n\n%s\n' "$table" "$summary" >"$report"; fi
[ $counted -gt 0 ] && [ $((100 * killed)) -ge $((90 * counted)) ]
