package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockException;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What an outage writes to the log: twelve callers of a locked method (holders renewed by
 * the watchdog, waiters that give up) keep calling while Redis is down. The client says
 * once that Redis cannot be reached and once that it is back; every caller gets its
 * exception, but no line a call. Nothing at WARN or above comes from a logger named after
 * an internal class. The outage lasts 8 s here ({@code -Dredislock.test.outage=PT60S} for
 * the minute: with the default 30 s watchdog, holders then also lose their
 * leases, one WARN each).
 */
@ExtendWith(OutputCaptureExtension.class)
class OutageLogTests {

	private static final Duration OUTAGE = Duration.parse(System.getProperty("redislock.test.outage", "PT8S"));

	private static final int CALLERS = 12;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void anOutageIsToldOnceWhenItStartsAndOnceWhenItEnds(CapturedOutput output) throws Exception {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.wait-time=300ms", "redis-lock.command-timeout=500ms")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Reports reports = context.getBean(Reports.class);
				String name = UUID.randomUUID().toString();
				AtomicBoolean stop = new AtomicBoolean();
				AtomicInteger failed = new AtomicInteger();
				AtomicInteger succeeded = new AtomicInteger();
				ExecutorService callers = Executors.newFixedThreadPool(CALLERS);
				for (int i = 0; i < CALLERS; i++) {
					// a few names, so that some callers hold while others wait and give
					// up
					String key = name + ":" + (i % 3);
					callers.execute(() -> {
						while (!stop.get()) {
							try {
								reports.build(key);
								succeeded.incrementAndGet();
							}
							catch (LockNotAcquiredException ex) {
								// busy: another caller holds it
							}
							catch (RedisLockException ex) {
								failed.incrementAndGet();
							}
						}
					});
				}
				try {
					await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() >= CALLERS);
					redis.server().stop();
					long outageEnds = System.nanoTime() + OUTAGE.toNanos();
					for (long left = OUTAGE.toNanos(); left > 0; left = outageEnds - System.nanoTime()) {
						LockSupport.parkNanos(left);
					}
					int failedDuring = failed.get();
					redis.server().start();
					int succeededAfter = succeeded.get();
					await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() > succeededAfter + CALLERS);
					await().atMost(Duration.ofSeconds(10))
						.until(() -> output.getAll().contains("answers again, after"));
					// the whole run: a blip while warming up on a loaded machine is told
					// too,
					// and must not hide the outage's own lines
					List<String> lines = output.getAll().lines().toList();
					List<String> warnings = lines.stream()
						.filter((line) -> line.matches("^\\S+ (WARN|ERROR) .*"))
						.filter((line) -> line.contains(" i.g.r") || line.contains(" io.github.redislock"))
						.toList();
					System.out.printf("An outage of %d s with %d callers: %d calls failed, %d WARN/ERROR lines:%n%s%n",
							OUTAGE.toSeconds(), CALLERS, failedDuring, warnings.size(), String.join("\n", warnings));
					assertThat(failedDuring).as("calls failed during the outage").isGreaterThan(CALLERS);
					assertThat(warnings).as("WARN or worse from internal loggers")
						.noneMatch((line) -> line.contains(".internal.") || line.contains("i.g.r.internal"));
					// the outage is told once; a minute's outage adds a reminder and,
					// with
					// the watchdog's 30 s lease, each holder's lost lease
					assertThat(warnings).as("WARN or worse lines")
						.hasSizeLessThanOrEqualTo((OUTAGE.toSeconds() < 30) ? 3 : 4 + CALLERS);
					assertThat(warnings).anyMatch((line) -> line.contains("cannot be reached"));
					assertThat(lines.stream().filter((line) -> line.contains("answers again, after")).count())
						.isBetween(1L, 2L);
				}
				finally {
					stop.set(true);
					callers.shutdown();
					assertThat(callers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
				}
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		@DistributedLock(name = "report", key = "#key")
		public void build(String key) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}

	}

}
