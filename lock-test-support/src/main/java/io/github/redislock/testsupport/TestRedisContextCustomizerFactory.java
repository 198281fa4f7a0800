package io.github.redislock.testsupport;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives the context of a test class annotated with {@link AutoConfigureTestRedis} (on it,
 * a superclass or an enclosing class) its {@link TestRedisContextCustomizer}. Listed in
 * {@code META-INF/spring.factories}, as Spring Boot lists its own.
 */
class TestRedisContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		return TestContextAnnotationUtils.hasAnnotation(testClass, AutoConfigureTestRedis.class)
				? new TestRedisContextCustomizer() : null;
	}

}
