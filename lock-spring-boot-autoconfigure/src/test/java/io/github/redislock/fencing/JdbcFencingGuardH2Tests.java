package io.github.redislock.fencing;

import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link JdbcFencingGuard} on H2, with the update-then-insert statements every database
 * takes, in transactions of Spring's {@code DataSourceTransactionManager}.
 */
class JdbcFencingGuardH2Tests extends FencingGuardContract {

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	private JdbcFencingGuard guard;

	@BeforeEach
	void createDatabase() {
		DataSource dataSource = new DriverManagerDataSource(
				"jdbc:h2:mem:fence-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
		this.jdbc = new JdbcTemplate(dataSource);
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		this.guard = new JdbcFencingGuard(this.jdbc);
		new ResourceDatabasePopulator(new ClassPathResource("io/github/redislock/fencing/schema.sql"))
			.execute(dataSource);
		this.jdbc.execute("CREATE TABLE invoice (id BIGINT PRIMARY KEY, state VARCHAR(20) NOT NULL)");
	}

	@Override
	protected FencingGuard guard() {
		return this.guard;
	}

	@Override
	protected void inUnitOfWork(Runnable work) {
		this.transactions.executeWithoutResult((status) -> work.run());
	}

	@Test
	void aRefusedHolderWritesNothingBecauseItsTransactionRollsBack() {
		this.jdbc.update("INSERT INTO invoice (id, state) VALUES (7, 'open')");
		pay(BASE + 7, "paid");
		assertThatExceptionOfType(StaleFencingTokenException.class).isThrownBy(() -> pay(BASE + 5, "cancelled"));
		assertThat(this.jdbc.queryForObject("SELECT state FROM invoice WHERE id = 7", String.class)).isEqualTo("paid");
	}

	@Test
	void aTokenRecordedInATransactionThatRollsBackIsForgotten() {
		String resource = resource();
		assertThatIllegalStateException().isThrownBy(() -> inUnitOfWork(() -> {
			this.guard.accept(resource, BASE + 7);
			throw new IllegalStateException("the guarded work failed");
		}));
		accept(resource, BASE + 5);
	}

	@Test
	void outsideATransactionItRefusesToRunSayingWhy() {
		assertThatIllegalStateException().isThrownBy(() -> this.guard.accept("invoice:7", BASE))
			.withMessageContaining("'invoice:7'")
			.withMessageContaining("@Transactional");
	}

	@Test
	void aTableOfAnotherNameAndSchemaWorksTheSame() {
		this.jdbc.execute("CREATE SCHEMA locks");
		JdbcFencingGuard guard = new JdbcFencingGuard(this.jdbc, "locks.fence");
		this.jdbc.execute(guard.schemaSql());
		String resource = resource();
		inUnitOfWork(() -> guard.accept(resource, BASE + 7));
		assertThatExceptionOfType(StaleFencingTokenException.class)
			.isThrownBy(() -> inUnitOfWork(() -> guard.accept(resource, BASE + 5)));
		assertThat(this.jdbc.queryForObject("SELECT token FROM locks.fence WHERE resource = ?", Long.class, resource))
			.isEqualTo(BASE + 7);
	}

	@Test
	void aTableNameThatIsNotAPlainIdentifierIsRejectedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new JdbcFencingGuard(this.jdbc, "fence; DROP TABLE x"))
			.withMessageContaining("'fence; DROP TABLE x'");
	}

	private void pay(long token, String state) {
		inUnitOfWork(() -> {
			this.guard.accept("invoice:7", token);
			this.jdbc.update("UPDATE invoice SET state = ? WHERE id = 7", state);
		});
	}

}
