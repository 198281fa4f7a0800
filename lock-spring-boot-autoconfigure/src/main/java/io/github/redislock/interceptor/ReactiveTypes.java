package io.github.redislock.interceptor;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Reactor's {@code Mono} and {@code Flux}, known by name so that nothing here loads
 * Reactor when the application does not have it.
 */
final class ReactiveTypes {

	@Nullable private static final Class<?> mono = load("reactor.core.publisher.Mono");

	@Nullable private static final Class<?> flux = load("reactor.core.publisher.Flux");

	// what Spring's AOP proxies need to hand a suspending function's call to an
	// interceptor as a Mono, and to await the Mono it returns
	private static final boolean coroutinesReactorPresent = mono != null
			&& ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", ReactiveTypes.class.getClassLoader());

	private ReactiveTypes() {
	}

	/** Whether the type is exactly {@code Mono}. */
	static boolean isMono(Class<?> type) {
		return mono != null && type == mono;
	}

	/** Whether the type is exactly {@code Flux}. */
	static boolean isFlux(Class<?> type) {
		return flux != null && type == flux;
	}

	/** Whether the type is {@code Mono} or {@code Flux}, or one of their subtypes. */
	static boolean isReactorType(Class<?> type) {
		return (mono != null && mono.isAssignableFrom(type)) || (flux != null && flux.isAssignableFrom(type));
	}

	/**
	 * Whether a Kotlin suspending function can be locked: Spring's proxy then invokes it
	 * as a {@code Mono} and awaits what the interceptor returns.
	 */
	static boolean canLockSuspendingFunctions() {
		return coroutinesReactorPresent;
	}

	@Nullable private static Class<?> load(String name) {
		ClassLoader classLoader = ReactiveTypes.class.getClassLoader();
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

}
