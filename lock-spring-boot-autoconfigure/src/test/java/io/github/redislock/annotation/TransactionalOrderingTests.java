package io.github.redislock.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * By default the lock wraps {@code @Transactional}: the transaction commits while the
 * lock is still held, so the next holder reads committed data. Shown with a real
 * transaction manager on an embedded database.
 */
class TransactionalOrderingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
		.withUserConfiguration(StockConfiguration.class);

	@Test
	void transactionCommitsWhileTheLockIsStillHeld() {
		this.contextRunner.run((context) -> {
			StockService stock = context.getBean(StockService.class);
			stock.reserve("sku-1");
			assertThat(stock.lockHeldAtCommit()).containsExactly(true);
		});
	}

	@Test
	void concurrentCallersAlwaysSeeTheCommittedStock() {
		this.contextRunner.run((context) -> {
			StockService stock = context.getBean(StockService.class);
			ExecutorService threads = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> calls = new ArrayList<>();
				for (int i = 0; i < 4; i++) {
					calls.add(threads.submit(() -> {
						for (int n = 0; n < 20; n++) {
							stock.reserve("sku-2");
						}
					}));
				}
				for (Future<?> call : calls) {
					call.get(60, TimeUnit.SECONDS);
				}
			}
			finally {
				threads.shutdownNow();
			}
			assertThat(stock.quantity("sku-2")).isEqualTo(1000 - 80);
		});
	}

	@Test
	void anAspectOrderInsideTheTransactionReleasesTheLockBeforeCommit() {
		this.contextRunner.withPropertyValues("redis-lock.aspect-order=" + Integer.MAX_VALUE)
			.withUserConfiguration(OuterTransactions.class)
			.run((context) -> {
				StockService stock = context.getBean(StockService.class);
				stock.reserve("sku-3");
				assertThat(stock.lockHeldAtCommit()).containsExactly(false);
			});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class StockConfiguration {

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("classpath:stock.sql")
				.build();
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		StockService stockService(DataSource dataSource, RedisLockClient lockClient) {
			return new StockService(new JdbcTemplate(dataSource), lockClient);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement(order = 0)
	static class OuterTransactions {

	}

	static class StockService {

		private final JdbcTemplate jdbc;

		private final RedisLockClient lockClient;

		private final List<Boolean> lockHeldAtCommit = new CopyOnWriteArrayList<>();

		StockService(JdbcTemplate jdbc, RedisLockClient lockClient) {
			this.jdbc = jdbc;
			this.lockClient = lockClient;
		}

		@DistributedLock(name = "stock", key = "#sku")
		@Transactional
		public void reserve(String sku) {
			Integer quantity = this.jdbc.queryForObject("select quantity from stock where sku = ?", Integer.class, sku);
			this.jdbc.update("update stock set quantity = ? where sku = ?", quantity - 1, sku);
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					StockService.this.lockHeldAtCommit
						.add(StockService.this.lockClient.getLock("stock:" + sku).isHeldByCurrentThread());
				}
			});
		}

		public int quantity(String sku) {
			return this.jdbc.queryForObject("select quantity from stock where sku = ?", Integer.class, sku);
		}

		public List<Boolean> lockHeldAtCommit() {
			return this.lockHeldAtCommit;
		}

	}

}
