#!/usr/bin/env bash
# Compares two versions of this library on one benchmark scenario, as docs/performance.md
# says to: each version built once in a clone of its own, their runs alternated on an idle
# machine with the order swapped every pair, and the ratio of the means reported.
#
#   benchmarks/compare-versions.sh OLD NEW [PAIRS] [SCENARIO]
#
# OLD and NEW are commits (or branches) of this repository; PAIRS defaults to 6, SCENARIO
# (matched against the scenarios' titles, as --only) to "reactive, uncontended". RUN and
# WARMUP set each run's length (30s after 15s: the JIT compiles for most of a process's first
# 40 s, and a shorter warm-up measures that too). Each pair also shows the CPU each version
# spent per operation, whose medians end the report. Needs a JDK, git and redis-server, as the
# benchmark does. Do not build or test anything else meanwhile: the cores are the measure.
set -euo pipefail

old=${1:?"usage: $0 OLD NEW [PAIRS] [SCENARIO]"}
new=${2:?"usage: $0 OLD NEW [PAIRS] [SCENARIO]"}
pairs=${3:-6}
scenario=${4:-"reactive, uncontended"}
repository=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build() {
	local clone="$work/$1"
	git clone -q "$repository" "$clone"
	git -C "$clone" checkout -q "$2"
	(cd "$clone" && ./mvnw -B -q -pl benchmarks -am -DskipTests package \
		org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath -Dmdep.outputFile=cp.txt)
	echo "$1: $(git -C "$clone" log --oneline -1)"
}

# one run of a version: its pairs (or acquisitions) per second, then the CPU this JVM and
# Redis spent per operation and Redis' part of it (µs), which vary less than the rate
# when something else takes the cores for a while
run() {
	local benchmarks="$work/$1/benchmarks"
	(cd "$benchmarks" && java -Xmx1g -Djava.awt.headless=true -cp "target/classes:$(cat cp.txt)" \
		io.github.redislock.benchmark.BenchmarkMain "--run=${RUN:-30s}" "--warmup=${WARMUP:-15s}" --rounds=1 \
		"--only=$scenario" --libraries=REDIS_LOCK "--out=$work/out-$1" > "$work/run-$1.log" 2>&1)
	# the first table's header names the columns: the rate is the second, the CPU the one titled so
	awk -F'|' '/^\| Library/ && !column { for (i = 1; i <= NF; i++) if ($i ~ /CPU/) column = i }
		/^\| redis-lock / && !done { rate = $3; gsub(/[ ,]/, "", rate); cpu = $column; gsub(/[ ,]/, "", cpu)
			split(cpu, parts, /[()]/); print rate, parts[1], parts[2]; done = 1 }' "$work/out-$1/RESULTS.md"
}

build old "$old"
build new "$new"
cpus="$work/cpu.txt"
sum_old=0
sum_new=0
for i in $(seq 1 "$pairs"); do
	if (( i % 2 == 1 )); then
		read -r o oc or < <(run old); read -r n nc nr < <(run new)
	else
		read -r n nc nr < <(run new); read -r o oc or < <(run old)
	fi
	sum_old=$((sum_old + o))
	sum_new=$((sum_new + n))
	echo "$oc $nc $or $nr" >> "$cpus"
	awk -v i="$i" -v o="$o" -v n="$n" -v oc="$oc" -v nc="$nc" -v ored="$or" -v nred="$nr" 'BEGIN {
		printf "pair %d: old %d, new %d, new/old %.3f; CPU µs/op old %s (Redis %s), new %s (Redis %s)\n",
			i, o, n, n / o, oc, ored, nc, nred }'
done
awk -v o="$sum_old" -v n="$sum_new" -v p="$pairs" \
	'BEGIN { printf "means: old %.0f, new %.0f; new/old %.3f\n", o / p, n / p, n / o }'
# medians of the CPU per operation: a pair disturbed by other load moves them less than the means of rates
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
old_cpu=$(cut -d' ' -f1 "$cpus" | median); new_cpu=$(cut -d' ' -f2 "$cpus" | median)
old_redis=$(cut -d' ' -f3 "$cpus" | median); new_redis=$(cut -d' ' -f4 "$cpus" | median)
awk -v o="$old_cpu" -v n="$new_cpu" -v ored="$old_redis" -v nred="$new_redis" 'BEGIN {
	printf "CPU µs/op, medians: old %s (Redis %s), new %s (Redis %s); new/old %.3f\n", o, ored, n, nred, n / o }'
