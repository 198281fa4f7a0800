package io.github.redislock.testsupport;

import java.util.function.Supplier;

import org.springframework.data.redis.connection.RedisClusterConfiguration;

/**
 * Gives a test class its own Redis Cluster (see {@link RedisCluster}), as
 * {@link RedisServerExtension} gives it a server. Register it in a static field to share
 * one Cluster across the class, or in an instance field for a fresh Cluster per test:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final RedisClusterExtension cluster = new RedisClusterExtension(3, 1);
 * </pre>
 *
 * After every test a shared Cluster gets back the nodes the test paused, stopped or
 * crashed (see {@link RedisCluster#restartStoppedNodes()}), so that one fault test cannot
 * break the next. Extensions of the test instance (clients, connection factories) are
 * closed before that: JUnit runs a class's extensions after those of its tests.
 *
 * @since 0.1.0
 */
public final class RedisClusterExtension extends TestTopologyExtension<RedisCluster> {

	/**
	 * A Cluster of masters without replicas.
	 * @param masters how many masters (at least 3)
	 */
	public RedisClusterExtension(int masters) {
		this(masters, 0);
	}

	/**
	 * A Cluster of masters, each with replicas.
	 * @param masters how many masters (at least 3)
	 * @param replicasPerMaster how many replicas each master gets
	 */
	public RedisClusterExtension(int masters, int replicasPerMaster) {
		this(() -> RedisCluster.start(masters, replicasPerMaster));
	}

	/**
	 * A Cluster the given function starts, e.g. with another {@code redis-server}
	 * ({@link RedisCluster#start(int, int, java.nio.file.Path)}). It runs before the
	 * class's {@code @BeforeAll} methods (or each test's {@code @BeforeEach} ones), and
	 * may skip the tests with a failed JUnit assumption when it cannot start the Cluster
	 * they need.
	 * @param starter starts the Cluster and returns it once it is ready
	 */
	public RedisClusterExtension(Supplier<RedisCluster> starter) {
		super(starter);
	}

	@Override
	void restore(RedisCluster cluster) {
		cluster.restartStoppedNodes();
	}

	/** The running Cluster. */
	public RedisCluster cluster() {
		return running();
	}

	/**
	 * Where the Cluster is, for a connection factory: every node's address.
	 */
	public RedisClusterConfiguration configuration() {
		return new RedisClusterConfiguration(cluster().nodeAddresses());
	}

}
