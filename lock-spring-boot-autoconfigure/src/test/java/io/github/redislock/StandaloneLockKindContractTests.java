package io.github.redislock;

import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServers;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * Every lock kind keeps {@link LockKindContract} on a standalone Redis.
 */
class StandaloneLockKindContractTests extends LockKindContract {

	private RedisServer server;

	@Override
	LockTestClients startTopology() {
		this.server = RedisServers.start();
		return LockTestClients.on(() -> new RedisStandaloneConfiguration(this.server.host(), this.server.port()),
				TestTimeouts.COMMAND_TIMEOUT);
	}

	@Override
	void stopTopology() {
		this.server.close();
	}

}
