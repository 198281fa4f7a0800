package io.github.redislock;

import java.util.stream.Stream;

import io.github.redislock.testsupport.RedisCluster;

import org.springframework.data.redis.connection.RedisClusterConfiguration;

/**
 * Every lock kind keeps {@link LockKindContract} on a Redis Cluster of three masters, as
 * {@link RedisClusterTests} starts it: every name's keys in its own slot, waiters woken
 * across nodes. Each kind runs once, reached one way: what the topology changes is the
 * kind's scripts, keys and release messages, which every way of reaching it shares;
 * {@link StandaloneLockKindContractTests} runs every way.
 */
class ClusterLockKindContractTests extends LockKindContract {

	private RedisCluster cluster;

	@Override
	LockTestClients startTopology() {
		this.cluster = RedisCluster.start(3);
		return LockTestClients.on(() -> new RedisClusterConfiguration(this.cluster.nodeAddresses()),
				TestTimeouts.COMMAND_TIMEOUT);
	}

	@Override
	Stream<ContractKind> kinds() {
		return Stream.of(ContractKind.exclusiveLock(), ContractKind.fairHandle(), ContractKind.readLock(),
				ContractKind.writeAsyncHandle(), ContractKind.semaphoreHandle());
	}

	@Override
	void stopTopology() {
		this.cluster.close();
	}

}
