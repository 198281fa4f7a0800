package io.github.redislock.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

/**
 * Spring Boot's Redis connection details for the test Redis: a bean of this type makes
 * Boot's Redis auto-configuration connect there and ignore {@code spring.data.redis.*}
 * (host, port, URL, password, Sentinel, Cluster), as a {@code @ServiceConnection} does.
 * The type is {@code DataRedisConnectionDetails} in Boot 4 and
 * {@code RedisConnectionDetails} in Boot 3.5, so the details are a proxy of whichever is
 * on the class path: {@code getStandalone()} answers the server's host and port, every
 * other method its default (no user, no password, no SSL bundle, database 0).
 */
final class TestRedisConnectionDetails {

	private static final String[] TYPES = {
			"org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails",
			"org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails" };

	private TestRedisConnectionDetails() {
	}

	/** The connection details type of the Spring Boot on the class path, if any. */
	static @Nullable Class<?> type(@Nullable ClassLoader classLoader) {
		for (String name : TYPES) {
			try {
				return Class.forName(name, false, classLoader);
			}
			catch (ClassNotFoundException | LinkageError ex) {
				// the other Boot generation's name
			}
		}
		return null;
	}

	/** Details of the given type that name the server. */
	static Object of(Class<?> type, RedisServer server) {
		Object standalone = standalone(type, server);
		String description = "Redis connection details of the test Redis at " + server.host() + ":" + server.port();
		InvocationHandler handler = (proxy, method, arguments) -> switch (method.getName()) {
			case "getStandalone" -> standalone;
			case "toString" -> description;
			case "hashCode" -> System.identityHashCode(proxy);
			case "equals" -> proxy == arguments[0];
			default -> method.isDefault() ? InvocationHandler.invokeDefault(proxy, method, arguments) : null;
		};
		return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, handler);
	}

	// Standalone.of(host, port), the same in both generations
	private static Object standalone(Class<?> type, RedisServer server) {
		try {
			Class<?> standaloneType = Class.forName(type.getName() + "$Standalone", false, type.getClassLoader());
			Method of = standaloneType.getMethod("of", String.class, int.class);
			return of.invoke(null, server.host(), server.port());
		}
		catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException ex) {
			throw new IllegalStateException(
					"Unsupported Spring Boot: " + type.getName()
							+ ".Standalone.of(String, int) is missing; redis-lock supports Spring Boot 3.5 and 4.x",
					ex);
		}
		catch (InvocationTargetException ex) {
			throw new IllegalStateException("Could not describe the test Redis to Spring Boot", ex.getCause());
		}
	}

}
