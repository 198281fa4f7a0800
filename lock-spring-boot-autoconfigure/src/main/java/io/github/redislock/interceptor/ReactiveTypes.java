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

	@Nullable private static Class<?> load(String name) {
		ClassLoader classLoader = ReactiveTypes.class.getClassLoader();
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

}
