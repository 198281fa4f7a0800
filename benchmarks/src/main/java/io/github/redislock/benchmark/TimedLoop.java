package io.github.redislock.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

import org.HdrHistogram.Histogram;

/**
 * Runs a step on several threads until a wall-clock end time, measuring only the steps
 * that start inside the measurement window; the steps before it warm up the JIT, the
 * connections and the subscriptions.
 */
final class TimedLoop {

	private TimedLoop() {
	}

	/**
	 * One unit of work; returns the nanoseconds to record, or a negative value to record
	 * nothing.
	 */
	@FunctionalInterface
	interface Step {

		long run(boolean measuring);

	}

	/**
	 * @param measured steps started inside the window
	 * @param total all steps, warm-up included
	 * @param latency what the measured steps returned
	 */
	record Result(long measured, long total, Histogram latency, double seconds) {
	}

	static Result run(int threads, long measureFromMillis, long endMillis, IntFunction<Step> steps) {
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<Result>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				Step step = steps.apply(t);
				results.add(pool.submit(() -> loop(step, measureFromMillis, endMillis)));
			}
			long measured = 0;
			long total = 0;
			Histogram latency = newHistogram();
			for (Future<Result> result : results) {
				Result one = result.get();
				measured += one.measured();
				total += one.total();
				latency.add(one.latency());
			}
			return new Result(measured, total, latency, (endMillis - measureFromMillis) / 1000.0);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("A benchmark thread failed", ex.getCause());
		}
		finally {
			pool.shutdownNow();
		}
	}

	static Histogram newHistogram() {
		return new Histogram(60_000_000_000L, 3);
	}

	private static Result loop(Step step, long measureFromMillis, long endMillis) {
		Histogram latency = newHistogram();
		long measured = 0;
		long total = 0;
		for (long now = System.currentTimeMillis(); now < endMillis; now = System.currentTimeMillis()) {
			boolean measuring = now >= measureFromMillis;
			long nanos = step.run(measuring);
			total++;
			if (measuring) {
				measured++;
				if (nanos >= 0) {
					latency.recordValue(Math.min(nanos, latency.getHighestTrackableValue()));
				}
			}
		}
		return new Result(measured, total, latency, 0);
	}

}
