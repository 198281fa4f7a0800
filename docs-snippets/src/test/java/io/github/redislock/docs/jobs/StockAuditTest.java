package io.github.redislock.docs.jobs;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.scheduling.annotation.Scheduled;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.testsupport.AutoConfigureTestRedis;
import io.github.redislock.testsupport.TestLocks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code TestLocks} example of docs/testing-your-application.md: a scheduled job's
 * lock stays taken for the rest of its tick, so a second call in the same test skips
 * until the test releases it.
 */
@SpringBootTest
@AutoConfigureTestRedis
class StockAuditTest {

	@Autowired
	StockAudit audit;

	@Autowired
	TestLocks testLocks;

	// tag::release[]
	@Test
	void auditsAgainOnceTheTicksLockIsReleased() {
		audit.audit();
		audit.audit(); // skipped: the lock stays taken for the rest of the tick
		assertThat(audit.runs()).isEqualTo(1);

		testLocks.releaseAll();
		audit.audit();

		assertThat(audit.runs()).isEqualTo(2);
	}
	// end::release[]

	static class StockAudit {

		private final AtomicInteger runs = new AtomicInteger();

		@Scheduled(cron = "0 0 6 * * *")
		@DistributedLock(name = "stock-audit")
		public void audit() {
			this.runs.incrementAndGet();
		}

		int runs() {
			return this.runs.get();
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(StockAudit.class)
	static class Application {

	}

}
