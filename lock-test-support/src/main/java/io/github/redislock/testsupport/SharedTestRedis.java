package io.github.redislock.testsupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The one Redis of a test JVM that {@link AutoConfigureTestRedis} gives to application
 * contexts: started when the first context needs it, and stopped only once the JVM has
 * exited (see {@link RedisServers#startUntilJvmExit()}). The test context framework keeps
 * contexts cached until the JVM exits, and closes them then; a Redis stopped earlier,
 * after a test class, makes their Lettuce connections log reconnection failures until
 * then.
 */
final class SharedTestRedis {

	private static final Log logger = LogFactory.getLog(SharedTestRedis.class);

	private static @Nullable RedisServer server;

	private SharedTestRedis() {
	}

	static synchronized RedisServer get() {
		RedisServer started = server;
		if (started == null) {
			started = RedisServers.startUntilJvmExit();
			server = started;
			logger.info("Started the test Redis for this JVM: " + started);
		}
		return started;
	}

}
