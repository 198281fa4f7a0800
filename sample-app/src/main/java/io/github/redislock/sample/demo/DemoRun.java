package io.github.redislock.sample.demo;

/**
 * The outcome of one run of the oversell demo.
 *
 * @param run which run: with or without the lock
 * @param requests the reservation attempts, one unit each
 * @param sold the attempts that were told they got their unit
 * @param rejected the attempts told the SKU was sold out
 * @param failed the attempts that got neither answer (lock wait ran out, Redis error)
 * @param oversold the units sold beyond the stock there was
 * @param stockLeft the stock level Redis holds afterwards
 * @param millis how long the run took
 */
public record DemoRun(String run, int requests, int sold, int rejected, int failed, int oversold, int stockLeft,
		long millis) {

}
