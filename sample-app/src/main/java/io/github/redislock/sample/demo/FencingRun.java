package io.github.redislock.sample.demo;

/**
 * The outcome of the demo's paused-holder run: one instance takes the SKU's lock with a
 * short lease, reads the level and pauses past the lease (as a long GC pause would); the
 * other instance takes the lock, sells a unit and writes; the first resumes and writes
 * the level it computed before its pause.
 *
 * @param write how the stock was written: {@code plain}, or {@code fenced} (the store
 * refuses a write whose fencing token is older than the last write's)
 * @param sold the units the two instances were told they sold
 * @param staleWritesRejected the paused holder's writes the store refused
 * @param oversold the units sold beyond what the stock level shows as gone
 * @param stockLeft the stock level afterwards
 * @param pausedToken the fencing token of the holder that paused
 * @param takeOverToken the fencing token of the instance that took the lock over
 */
public record FencingRun(String write, int sold, int staleWritesRejected, int oversold, int stockLeft, long pausedToken,
		long takeOverToken) {

}
