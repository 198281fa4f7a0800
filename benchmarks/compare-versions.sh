#!/usr/bin/env bash
# Compares two versions of this library on one benchmark scenario, as docs/performance.md
# says to: each version built once in a clone of its own, their runs alternated on an idle
# machine with the order swapped every pair, and the ratio of the means reported.
#
#   benchmarks/compare-versions.sh OLD NEW [PAIRS] [SCENARIO]
#
# OLD and NEW are commits (or branches) of this repository; PAIRS defaults to 6, SCENARIO
# (matched against the scenarios' titles, as --only) to "reactive, uncontended". RUN and
# WARMUP set each run's length (20s and 2s). Needs a JDK, git and redis-server, as the
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

# one run of a version: its pairs (or acquisitions) per second
rate() {
	local benchmarks="$work/$1/benchmarks"
	(cd "$benchmarks" && java -Xmx1g -Djava.awt.headless=true -cp "target/classes:$(cat cp.txt)" \
		io.github.redislock.benchmark.BenchmarkMain "--run=${RUN:-20s}" "--warmup=${WARMUP:-2s}" --rounds=1 \
		"--only=$scenario" --libraries=REDIS_LOCK "--out=$work/out-$1" > "$work/run-$1.log" 2>&1)
	grep '^| redis-lock ' "$work/out-$1/RESULTS.md" | head -1 | awk -F'|' '{ gsub(/[ ,]/, "", $3); print $3 }'
}

build old "$old"
build new "$new"
sum_old=0
sum_new=0
for i in $(seq 1 "$pairs"); do
	if (( i % 2 == 1 )); then
		o=$(rate old); n=$(rate new)
	else
		n=$(rate new); o=$(rate old)
	fi
	sum_old=$((sum_old + o))
	sum_new=$((sum_new + n))
	awk -v i="$i" -v o="$o" -v n="$n" 'BEGIN { printf "pair %d: old %d, new %d, new/old %.3f\n", i, o, n, n / o }'
done
awk -v o="$sum_old" -v n="$sum_new" -v p="$pairs" \
	'BEGIN { printf "means: old %.0f, new %.0f; new/old %.3f\n", o / p, n / p, n / o }'
