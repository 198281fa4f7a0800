package io.github.redislock.testsupport;

import java.util.List;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Cluster shared by a class is whole again for each test: the nodes a test stopped or
 * paused run and answer in the next, and the Cluster is {@code ok}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterExtensionTests {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	@Test
	@Order(1)
	void aTestStopsOneReplicaAndPausesAnother() {
		assertThat(redis.configuration().getClusterNodes()).hasSize(6);
		List<RedisServer> replicas = redis.cluster()
			.nodes()
			.stream()
			.filter((node) -> node.command("ROLE").startsWith("slave"))
			.toList();
		assertThat(replicas).hasSize(3);
		replicas.get(0).stop();
		replicas.get(1).pause();
		assertThat(replicas.get(0).isRunning()).isFalse();
	}

	@Test
	@Order(2)
	void theNextFindsEveryNodeRunningAndTheClusterOk() {
		for (RedisServer node : redis.cluster().nodes()) {
			assertThat(node.isRunning()).as("node %s running", node.port()).isTrue();
			assertThat(node.command("CLUSTER", "INFO")).as("node %s", node.port()).contains("cluster_state:ok");
		}
	}

}
