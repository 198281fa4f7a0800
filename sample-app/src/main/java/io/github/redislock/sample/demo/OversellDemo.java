package io.github.redislock.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.stock.InsufficientStockException;
import io.github.redislock.sample.stock.Reservation;
import io.github.redislock.sample.stock.ReservationService;
import io.github.redislock.sample.stock.StockLedger;
import io.github.redislock.sample.stock.StockProperties;
import io.github.redislock.sample.stock.StockRepository;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.stereotype.Component;
import org.springframework.util.Assert;

/**
 * Shows what the lock is for. Two instances (this application and a
 * {@link SecondInstance}) fire reservation attempts of one unit each at a SKU with
 * limited stock, many at a time, twice: once reading, deciding and writing without a
 * lock, once under lock {@code stock:<sku>}, which this instance takes with
 * {@code @DistributedLock} and the second with {@code withLock}. Without the lock,
 * attempts that read the same level all sell the same unit; with it, exactly the stock is
 * sold. Then a holder pauses past its lease while the other instance sells a unit, and
 * writes what it computed before: a plain write loses the other's sale, a fenced one is
 * refused ({@link PausedHolder}). Each run uses a fresh SKU and deletes it afterwards.
 */
@Component
public class OversellDemo {

	private static final Log logger = LogFactory.getLog(OversellDemo.class);

	// The locked run queues every attempt behind one lock; the demo is about queueing,
	// not about time-outs, so the second instance waits long.
	private static final Duration SECOND_INSTANCE_LOCK_WAIT = Duration.ofSeconds(30);

	private final ReservationService reservations;

	private final StockLedger ledger;

	private final StockRepository repository;

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockProperties lockProperties;

	private final StockProperties stockProperties;

	private final RedisLockClient lockClient;

	private final FencedStock fencedStock;

	OversellDemo(ReservationService reservations, StockLedger ledger, StockRepository repository,
			LettuceConnectionFactory connectionFactory, RedisLockProperties lockProperties,
			StockProperties stockProperties, RedisLockClient lockClient, StringRedisTemplate redis) {
		this.lockClient = lockClient;
		this.fencedStock = new FencedStock(redis);
		this.reservations = reservations;
		this.ledger = ledger;
		this.repository = repository;
		this.connectionFactory = connectionFactory;
		this.lockProperties = lockProperties;
		this.stockProperties = stockProperties;
	}

	/**
	 * Runs the demo without the lock, then with it.
	 * @param stock the units in stock at the start of each run, 1 to 100,000
	 * @param requests the reservation attempts per run, 1 to 10,000
	 * @param concurrency how many attempts run at the same time, 1 to 64
	 * @return both runs' outcomes
	 */
	public DemoReport run(int stock, int requests, int concurrency) {
		Assert.isTrue(stock >= 1 && stock <= 100_000, () -> "stock must be 1 to 100000, was " + stock);
		Assert.isTrue(requests >= 1 && requests <= 10_000, () -> "requests must be 1 to 10000, was " + requests);
		Assert.isTrue(concurrency >= 1 && concurrency <= 64, () -> "concurrency must be 1 to 64, was " + concurrency);
		try (SecondInstance second = SecondInstance.connect(this.connectionFactory, this.lockProperties,
				this.stockProperties.thinkTime())) {
			DemoRun unlocked = run("without lock", stock, requests, concurrency,
					(instance, sku) -> (instance == 0) ? this.ledger.reserve(sku, 1) : second.reserveUnlocked(sku));
			DemoRun locked = run("with lock", stock, requests, concurrency, (instance, sku) -> (instance == 0)
					? this.reservations.reserve(sku, 1) : second.reserveLocked(sku, SECOND_INSTANCE_LOCK_WAIT));
			PausedHolder pausedHolder = new PausedHolder(this.lockClient, second, this.repository, this.fencedStock);
			List<FencingRun> fencing = List.of(pausedHolder.run(false), pausedHolder.run(true));
			DemoReport report = new DemoReport(stock, requests, concurrency, List.of(unlocked, locked), fencing);
			logger.info("Oversell demo finished\n" + report.table());
			return report;
		}
	}

	private DemoRun run(String name, int stock, int requests, int concurrency, Attempt attempt) {
		String sku = "demo-" + UUID.randomUUID();
		this.repository.save(sku, stock);
		ExecutorService executor = Executors.newFixedThreadPool(concurrency,
				new CustomizableThreadFactory("oversell-demo-"));
		// Every attempt waits at this gate, so that they start together rather than as
		// fast as they can be submitted.
		CountDownLatch start = new CountDownLatch(1);
		AtomicReference<RuntimeException> firstFailure = new AtomicReference<>();
		try {
			List<Future<Outcome>> attempts = new ArrayList<>(requests);
			for (int i = 0; i < requests; i++) {
				int instance = i % 2;
				attempts.add(executor.submit(() -> {
					start.await();
					return outcome(() -> attempt.reserve(instance, sku), firstFailure);
				}));
			}
			long started = System.nanoTime();
			start.countDown();
			Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
			for (Future<Outcome> outcome : attempts) {
				outcomes.merge(outcome.get(), 1, Integer::sum);
			}
			long millis = Duration.ofNanos(System.nanoTime() - started).toMillis();
			if (firstFailure.get() != null) {
				logger.warn(outcomes.get(Outcome.FAILED) + " attempts of the oversell demo run '" + name
						+ "' failed; the first because of: " + firstFailure.get(), firstFailure.get());
			}
			int sold = outcomes.getOrDefault(Outcome.SOLD, 0);
			return new DemoRun(name, requests, sold, outcomes.getOrDefault(Outcome.REJECTED, 0),
					outcomes.getOrDefault(Outcome.FAILED, 0), Math.max(0, sold - stock), this.repository.available(sku),
					millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during the oversell demo", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException("An attempt of the oversell demo failed", ex.getCause());
		}
		finally {
			executor.shutdownNow();
			this.repository.delete(sku);
		}
	}

	private static Outcome outcome(Supplier<Reservation> attempt, AtomicReference<RuntimeException> firstFailure) {
		try {
			attempt.get();
			return Outcome.SOLD;
		}
		catch (InsufficientStockException ex) {
			return Outcome.REJECTED;
		}
		catch (RuntimeException ex) {
			// the lock's wait ran out, or Redis failed; reported once per run, not per
			// attempt
			firstFailure.compareAndSet(null, ex);
			return Outcome.FAILED;
		}
	}

	@FunctionalInterface
	private interface Attempt {

		Reservation reserve(int instance, String sku);

	}

	private enum Outcome {

		SOLD, REJECTED, FAILED

	}

}
