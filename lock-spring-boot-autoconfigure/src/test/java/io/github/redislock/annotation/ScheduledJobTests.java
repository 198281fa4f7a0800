package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job that three instances start on their own, skewed clocks, as {@code @Scheduled}
 * does: with {@code holdAtLeast} it runs exactly once per slot; without it, an instance
 * whose clock is behind finds the short run over and runs the slot again.
 * <p>
 * Scaled down for CI: slots of 2 s, clocks up to 400 ms apart, a 50 ms job, a minimum
 * hold of 1.2 s, 10 slots ({@code -Dredislock.test.scheduleSlots=20} for more). The
 * hold's margins (over the skew, and under the next slot) are 800 ms each: with slots of
 * 1 s, a machine with both cores busy started some calls over 400 ms late and a slot went
 * unrun. {@code -Dredislock.test.scheduleSlot=PT10S} runs the full size (slots of 10 s,
 * clocks up to 2 s apart, 20 slots: over three minutes).
 */
class ScheduledJobTests {

	private static final Duration SLOT = Duration.parse(System.getProperty("redislock.test.scheduleSlot", "PT2S"));

	private static final int SLOTS = Integer.getInteger("redislock.test.scheduleSlots", 10);

	private static final Duration JOB = Duration.ofMillis(50);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void withHoldAtLeastEachSlotRunsOnceAcrossSkewedInstancesAndWithoutItDuplicatesShow() throws Throwable {
		String run = UUID.randomUUID().toString();
		ApplicationContextRunner instance = new ApplicationContextRunner()
			.withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("test.job.run=" + run, "test.job.hold-at-least=" + SLOT.multipliedBy(6).dividedBy(10))
			.withUserConfiguration(Jobs.class);
		instance.run((first) -> instance.run((second) -> instance.run((third) -> {
			List<AssertableApplicationContext> instances = List.of(first, second, third);
			fireEverySlot(instances);
		})));
		Map<Long, Integer> kept = runsPerSlot("kept:" + run);
		Map<Long, Integer> plain = runsPerSlot("plain:" + run);
		System.out.println("[figures] " + SLOTS + " slots of " + SLOT + ", clocks up to " + SLOT.dividedBy(5)
				+ " apart: with holdAtLeast " + total(kept) + " runs " + kept.values() + ", without " + total(plain)
				+ " runs " + plain.values());
		assertThat(kept).hasSize(SLOTS);
		assertThat(kept.values()).as("runs per slot with holdAtLeast").containsOnly(1);
		assertThat(plain).hasSize(SLOTS);
		assertThat(total(plain)).as("runs without holdAtLeast").isGreaterThan(SLOTS);
	}

	// instance k fires slot i at base + i * SLOT + k * SLOT / 10: clocks up to SLOT / 5
	// apart
	private static void fireEverySlot(List<AssertableApplicationContext> instances) throws Exception {
		// every instance runs both jobs once first, as slot -1 (not counted): a first
		// call
		// loads classes and scripts, which on a busy machine made slot 0's run start so
		// late that its minimum hold still kept slot 1 out
		for (AssertableApplicationContext instance : instances) {
			instance.getBean(Jobs.class).kept(-1);
			instance.getBean(Jobs.class).plain(-1);
		}
		ScheduledExecutorService clock = Executors.newScheduledThreadPool(6);
		try {
			// after the warm-up's minimum hold
			long base = System.nanoTime() + SLOT.toNanos();
			List<ScheduledFuture<?>> firings = new ArrayList<>();
			for (int slot = 0; slot < SLOTS; slot++) {
				for (int k = 0; k < instances.size(); k++) {
					Jobs jobs = instances.get(k).getBean(Jobs.class);
					long at = base + slot * SLOT.toNanos() + k * SLOT.toNanos() / 10;
					long firedSlot = slot;
					firings
						.add(clock.schedule(() -> jobs.kept(firedSlot), at - System.nanoTime(), TimeUnit.NANOSECONDS));
					firings
						.add(clock.schedule(() -> jobs.plain(firedSlot), at - System.nanoTime(), TimeUnit.NANOSECONDS));
				}
			}
			for (ScheduledFuture<?> firing : firings) {
				firing.get(SLOT.multipliedBy(SLOTS + 5).toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		finally {
			clock.shutdownNow();
		}
	}

	private static Map<Long, Integer> runsPerSlot(String job) {
		Map<Long, Integer> runs = new TreeMap<>();
		for (long slot = 0; slot < SLOTS; slot++) {
			String count = redis.command("GET", "runs:" + job + ":" + slot);
			if (count != null && !count.isEmpty()) {
				runs.put(slot, Integer.parseInt(count));
			}
		}
		return runs;
	}

	private static int total(Map<Long, Integer> runs) {
		return runs.values().stream().mapToInt(Integer::intValue).sum();
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		private final StringRedisTemplate redis;

		private final String run;

		Jobs(StringRedisTemplate redis, @Value("${test.job.run}") String run) {
			this.redis = redis;
			this.run = run;
		}

		@DistributedLock(name = "kept-job", waitTime = "0", ifLocked = IfLocked.SKIP,
				holdAtLeast = "${test.job.hold-at-least}")
		public Optional<Long> kept(long slot) {
			return work("kept", slot);
		}

		@DistributedLock(name = "plain-job", waitTime = "0", ifLocked = IfLocked.SKIP)
		public Optional<Long> plain(long slot) {
			return work("plain", slot);
		}

		private Optional<Long> work(String job, long slot) {
			this.redis.opsForValue().increment("runs:" + job + ":" + this.run + ":" + slot);
			try {
				Thread.sleep(JOB.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return Optional.of(slot);
		}

	}

}
