package io.github.redislock.autoconfigure;

import io.github.redislock.RedisLockClientProvider;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint;
import io.github.redislock.autoconfigure.actuate.ReleasingLocksEndpoint;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * What a native image or an AOT-processed application needs of this library at run time
 * that Spring cannot infer from bean definitions: the Lua scripts on the classpath, the
 * properties the annotation infrastructure binds itself, the root object SpEL key
 * expressions read through reflection, the {@code locks} endpoint's JSON, and the failure
 * analyzer Spring Boot loads by name.
 */
class RedisLockRuntimeHints implements RuntimeHintsRegistrar {

	/**
	 * Every lock kind's scripts, whatever kinds there are, and the prelude loaded in
	 * front of each (prelude.lua): they sit in one package folder.
	 */
	static final String SCRIPTS = "io/github/redislock/internal/*.lua";

	/** The script of RedisFencedValues and JdbcFencingGuard's schema.sql. */
	static final String FENCING_RESOURCES = "io/github/redislock/fencing/*";

	/** The services file that names the engine's {@link RedisLockClientProvider}. */
	static final String PROVIDER_SERVICE = "META-INF/services/io.github.redislock.RedisLockClientProvider";

	// by name: the autoconfiguration knows the engine's provider only as a service
	private static final String PROVIDER = "io.github.redislock.internal.DefaultRedisLockClientProvider";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(SCRIPTS);
		hints.resources().registerPattern(FENCING_RESOURCES);
		// the engine behind RedisLockClient.builder(), found through ServiceLoader
		hints.resources().registerPattern(PROVIDER_SERVICE);
		hints.reflection().registerType(TypeReference.of(PROVIDER), MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
		// bound with Binder by the annotation beans, which are created before the
		// properties bean
		BindableRuntimeHintsRegistrar.forTypes(RedisLockProperties.class).registerHints(hints, classLoader);
		// #root.method, #root.args, #root.target, #root.targetClass, #root.methodName
		hints.reflection()
			.registerType(TypeReference.of("io.github.redislock.interceptor.LockExpressionRoot"),
					MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection()
			.registerType(InvalidLockAnnotationFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
		if (ClassUtils.isPresent("org.springframework.boot.actuate.endpoint.annotation.Endpoint", classLoader)) {
			EndpointHints.register(hints);
		}
	}

	// its own class, so that the endpoint's types are loaded only when Actuator is there
	private static final class EndpointHints {

		static void register(RuntimeHints hints) {
			new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
					LocksEndpoint.LocksDescriptor.class, LocksEndpoint.LockDescriptor.class,
					ReleasingLocksEndpoint.ReleaseDescriptor.class);
		}

	}

}
