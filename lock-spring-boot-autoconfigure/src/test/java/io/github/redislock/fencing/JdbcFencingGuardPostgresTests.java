package io.github.redislock.fencing;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JdbcFencingGuard} on PostgreSQL, where it writes with one upsert, on a cluster
 * of this test's own ({@link PostgresCluster}); skipped when PostgreSQL is not installed.
 */
class JdbcFencingGuardPostgresTests extends FencingGuardContract {

	private static PostgresCluster postgres;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transactions;

	private static JdbcFencingGuard guard;

	@BeforeAll
	static void startPostgres() throws Exception {
		postgres = PostgresCluster.startOrSkip();
		jdbc = new JdbcTemplate(postgres.dataSource());
		transactions = new TransactionTemplate(new DataSourceTransactionManager(postgres.dataSource()));
		guard = new JdbcFencingGuard(jdbc);
		jdbc.execute(guard.schemaSql());
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		if (postgres != null) {
			postgres.close();
		}
	}

	@Override
	protected FencingGuard guard() {
		return guard;
	}

	@Override
	protected void inUnitOfWork(Runnable work) {
		transactions.executeWithoutResult((status) -> work.run());
	}

	@Test
	void aRefusalLeavesTheTransactionUsableForTheCallersOwnCleanUp() {
		String resource = resource();
		accept(resource, BASE + 7);
		Integer afterRefusal = transactions.execute((status) -> {
			try {
				guard.accept(resource, BASE + 5);
			}
			catch (StaleFencingTokenException ex) {
				// a PostgreSQL transaction after a failed statement refuses every other
			}
			return jdbc.queryForObject("SELECT 1", Integer.class);
		});
		assertThat(afterRefusal).isOne();
	}

}
