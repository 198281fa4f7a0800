package io.github.redislock.shedlock;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.autoconfigure.RedisLockShedLockAutoConfiguration;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * One application of {@link TwoApplicationsScheduledJobTests}, in a JVM of its own: a
 * Spring Boot application whose {@code @Scheduled @SchedulerLock} job runs every 200 ms
 * against the test's Redis, until a line on its standard input tells it to stop.
 * <p>
 * Arguments: the Redis host and port, and the application's name. It writes what the test
 * counts to its standard output, one record a line after {@link #RECORD}:
 * {@code firing <index> <nanos>} for every firing of the scheduler (also those ShedLock
 * skips), {@code run <index> <token> <asserted> <nanos>} for every run of the job (the
 * firing it ran for, its fencing token, whether {@code LockAssert} saw the lock, when it
 * started), {@code first-ended <nanos>} once the first firing ended, and {@link #READY}
 * once the context is up. Times are {@link System#nanoTime()}: on Linux the monotonic
 * clock of the machine, the same in every process.
 */
public final class ScheduledJobWorker {

	/** What starts a line the test reads. */
	static final String RECORD = "@@ ";

	static final String READY = "ready";

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	// the firing the scheduler thread is running, for the job to say which it ran for
	private static final ThreadLocal<Integer> firing = new ThreadLocal<>();

	private ScheduledJobWorker() {
	}

	public static void main(String[] args) throws Exception {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(JobApplication.class)
			.web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties("spring.main.banner-mode=off", "logging.level.root=WARN", "spring.data.redis.host=" + args[0],
					"spring.data.redis.port=" + args[1], "spring.data.redis.timeout=10s",
					"redis-lock.command-timeout=10s", "job.app=" + args[2])
			.run();
		record(READY);
		// until the test says stop, or goes away
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		context.close();
		out.flush();
		System.exit(0);
	}

	private static synchronized void record(String line) {
		out.println(RECORD + line);
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
			RedisLockShedLockAutoConfiguration.class })
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class JobApplication {

		// records every firing, the ones ShedLock skips too
		@Bean
		ThreadPoolTaskScheduler taskScheduler(@Value("${job.app}") String app) {
			AtomicInteger index = new AtomicInteger();
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler() {

				// on the wall clock's grid, as a cron: both applications fire for the
				// same ticks, whenever each started
				@Override
				public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
					long periodMillis = period.toMillis();
					long nextTick = (getClock().millis() / periodMillis + 1) * periodMillis;
					return scheduleAtFixedRate(task, Instant.ofEpochMilli(nextTick), period);
				}

			};
			scheduler.setThreadNamePrefix(app + "-scheduling-");
			scheduler.setTaskDecorator((task) -> () -> {
				int fired = index.getAndIncrement();
				record("firing " + fired + " " + System.nanoTime());
				firing.set(fired);
				try {
					task.run();
				}
				finally {
					firing.remove();
					if (fired == 0) {
						record("first-ended " + System.nanoTime());
					}
				}
			});
			return scheduler;
		}

		// One lock before the scheduler starts (it starts once the context is refreshed):
		// the client's first connects to Redis and loads the scripts, which took seconds
		// with both cores busy, and a first firing that slow makes the fixed rate fire
		// the ticks it missed in a burst whose runs keep the next ticks' lock.
		@Bean
		SmartInitializingSingleton warmUp(RedisLockClient client) {
			return () -> client.tryAcquire("warm-up", Duration.ZERO, null).ifPresent(LockHandle::release);
		}

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

	}

	static class ReportJob {

		@Scheduled(fixedRate = 200)
		@SchedulerLock(name = "report", lockAtLeastFor = "100ms")
		public void report() {
			long entered = System.nanoTime();
			boolean asserted;
			try {
				LockAssert.assertLocked();
				asserted = true;
			}
			catch (IllegalStateException ex) {
				asserted = false;
			}
			record("run " + firing.get() + " " + RedisLockProvider.fencingToken().orElse(-1) + " " + asserted + " "
					+ entered);
		}

	}

}
