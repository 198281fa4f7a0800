package io.github.redislock.fencing;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;

/**
 * A {@link FencingGuard} that keeps the highest token per resource in a table of the
 * application's database, written in the caller's transaction, so that the token and the
 * writes it guards commit or roll back together. Call it first in a
 * {@code @Transactional} method that holds the lock:
 *
 * <pre class="code">
 * &#64;Transactional
 * &#64;DistributedLock(name = "invoice", key = "#id")
 * public void pay(long id) {
 *     guard.accept("invoice:" + id, locks.getLock("invoice:" + id).fencingToken());
 *     jdbc.update("UPDATE invoice SET state = 'paid' WHERE id = ?", id);
 * }
 * </pre>
 *
 * The table ({@value #DEFAULT_TABLE} unless named otherwise) has one row per resource;
 * create it with {@link #schemaSql()}, or with
 * {@code classpath:io/github/redislock/fencing/schema.sql} (for
 * {@code spring.sql.init.schema-locations}, or to copy into a Flyway or Liquibase
 * migration): <pre class="code">
 * CREATE TABLE redis_lock_fence (
 *     resource VARCHAR(255) PRIMARY KEY,
 *     token    BIGINT       NOT NULL
 * )
 * </pre>
 *
 * <h2>Concurrency</h2>
 *
 * The token is written with {@code UPDATE ... SET token = ? WHERE resource = ? AND token
 * <= ?}, which locks the row until the transaction ends: a second holder's transaction
 * waits for the first to commit, then compares its token with the committed one (at READ
 * COMMITTED; at REPEATABLE READ or SERIALIZABLE the database fails it with a
 * serialization error instead, which is also a refusal, only a less clear one). A holder
 * refused here throws {@link StaleFencingTokenException}, which rolls its transaction
 * back.
 * <p>
 * On PostgreSQL (chosen once, from the connection's {@code DatabaseMetaData}) the first
 * write of a resource and every later one are a single {@code INSERT ... ON CONFLICT
 * (resource) DO UPDATE ... WHERE token <= EXCLUDED.token}, since a failed statement
 * aborts a PostgreSQL transaction. Elsewhere, a resource without a row gets one with an
 * {@code INSERT} after the {@code UPDATE} found none; when two transactions do that at
 * once, the database makes the second wait for the first, fail on the primary key, and
 * then update the committed row (or be refused) as above. A database that aborts the
 * whole transaction on that failure leaves the second caller with the database's
 * exception instead; insert each resource's row beforehand (token 0) to avoid that race.
 * <p>
 * Resources are up to 255 characters with the schema above.
 *
 * @since 0.1.0
 */
public final class JdbcFencingGuard implements FencingGuard {

	/** The table name used unless another is given. */
	public static final String DEFAULT_TABLE = "redis_lock_fence";

	private static final Pattern TABLE_NAME = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private final JdbcOperations jdbc;

	private final String table;

	private final String update;

	private final String select;

	private final String insert;

	private final String upsert;

	private volatile @Nullable Boolean upserts;

	/**
	 * Creates a guard on the {@value #DEFAULT_TABLE} table.
	 * @param jdbc the application's {@code JdbcTemplate}, on the data source its
	 * transactions use
	 */
	public JdbcFencingGuard(JdbcOperations jdbc) {
		this(jdbc, DEFAULT_TABLE);
	}

	/**
	 * Creates a guard on the given table.
	 * @param jdbc the application's {@code JdbcTemplate}, on the data source its
	 * transactions use
	 * @param table the table's name, optionally with its schema ({@code locks.fence}):
	 * letters, digits and underscores
	 * @throws IllegalArgumentException if the name is not a plain SQL identifier
	 */
	public JdbcFencingGuard(JdbcOperations jdbc, String table) {
		Assert.notNull(jdbc, "jdbc must not be null");
		Assert.isTrue(table != null && TABLE_NAME.matcher(table).matches(), () -> "The fence table name must be"
				+ " letters, digits and underscores, optionally after a schema name and a dot, was '" + table + "'");
		this.jdbc = jdbc;
		this.table = table;
		this.update = "UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?";
		this.select = "SELECT token FROM " + table + " WHERE resource = ?";
		this.insert = "INSERT INTO " + table + " (resource, token) VALUES (?, ?)";
		this.upsert = this.insert + " ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token WHERE " + table
				+ ".token <= EXCLUDED.token";
	}

	/** The table the tokens are kept in. */
	public String getTable() {
		return this.table;
	}

	/**
	 * The statement that creates this guard's table, for the application to run once
	 * ({@code jdbc.execute(guard.schemaSql())}) or to copy into its migrations.
	 */
	public String schemaSql() {
		return "CREATE TABLE " + this.table + " (resource VARCHAR(255) PRIMARY KEY, token BIGINT NOT NULL)";
	}

	/**
	 * Records the token for the resource in the current transaction, or refuses it.
	 * @throws StaleFencingTokenException if the table holds a higher token for the
	 * resource; the transaction should then roll back, as it does when this propagates
	 * out of a {@code @Transactional} method
	 * @throws IllegalStateException if no Spring-managed transaction is active: without
	 * one, the token would be committed apart from the writes it guards
	 */
	@Override
	public void accept(String resource, long token) {
		Assert.notNull(resource, "resource must not be null");
		Assert.state(TransactionSynchronizationManager.isActualTransactionActive(),
				() -> "JdbcFencingGuard needs a transaction, so that the fencing token of '" + resource
						+ "' commits with the writes it guards: call it from a @Transactional method (or a"
						+ " TransactionTemplate) on the data source of its JdbcTemplate");
		Long higher = upserts() ? upsert(resource, token) : updateOrInsert(resource, token);
		if (higher != null) {
			throw new StaleFencingTokenException(resource, token, higher);
		}
	}

	// Each returns null when the token was recorded, else the higher token that refused
	// it.

	private @Nullable Long upsert(String resource, long token) {
		return (this.jdbc.update(this.upsert, resource, token) == 1) ? null : highest(resource);
	}

	private @Nullable Long updateOrInsert(String resource, long token) {
		if (update(resource, token)) {
			return null;
		}
		List<Long> current = this.jdbc.queryForList(this.select, Long.class, resource);
		if (current.isEmpty()) {
			try {
				this.jdbc.update(this.insert, resource, token);
				return null;
			}
			catch (DuplicateKeyException ex) {
				// another transaction wrote the resource's first row, and committed
			}
		}
		else if (current.get(0) > token) {
			return current.get(0);
		}
		// a first row committed by another transaction since the update: compare with it
		return update(resource, token) ? null : highest(resource);
	}

	private boolean update(String resource, long token) {
		return this.jdbc.update(this.update, token, resource, token) == 1;
	}

	private long highest(String resource) {
		return Objects.requireNonNull(this.jdbc.queryForObject(this.select, Long.class, resource));
	}

	private boolean upserts() {
		Boolean upserts = this.upserts;
		if (upserts == null) {
			upserts = Boolean.TRUE.equals(this.jdbc.execute((ConnectionCallback<Boolean>) (connection) -> "PostgreSQL"
				.equals(connection.getMetaData().getDatabaseProductName())));
			this.upserts = upserts;
		}
		return upserts;
	}

	@Override
	public String toString() {
		return "JdbcFencingGuard[table=" + this.table + "]";
	}

}
