package io.github.redislock.autoconfigure;

import io.github.redislock.autoconfigure.actuate.LocksEndpoint;
import io.github.redislock.internal.ScriptTexts;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.ClassPathResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints a native image needs: every script the library loads, the properties it binds
 * itself, the SpEL root object, the failure analyzer and the endpoint's JSON; and the
 * registrar is found the way Spring's AOT processing looks for it.
 */
class RedisLockRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	RedisLockRuntimeHintsTests() {
		new RedisLockRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void everyScriptOnTheClasspathIsAResourceHint() throws Exception {
		// a script without a hint would fail only in a native image
		org.springframework.core.io.Resource[] scripts = new org.springframework.core.io.support.PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/redislock/internal/*.lua");
		assertThat(scripts).hasSizeGreaterThan(10);
		for (org.springframework.core.io.Resource script : scripts) {
			String path = "io/github/redislock/internal/" + script.getFilename();
			assertThat(new ClassPathResource(path).exists()).as(path).isTrue();
			assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(this.hints);
		}
		// every script is loaded behind it: without it, no script loads
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/redislock/internal/" + ScriptTexts.PRELUDE))
			.accepts(this.hints);
	}

	@Test
	void thePropertiesTheSpelRootTheAnalyzerAndTheEndpointJsonHaveReflectionHints() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection().onType(RedisLockProperties.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Class.forName("io.github.redislock.interceptor.LockExpressionRoot"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(InvalidLockAnnotationFailureAnalyzer.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(LocksEndpoint.HeldLockDescriptor.class))
			.accepts(this.hints);
	}

	@Test
	void theEngineBehindTheBuilderIsFoundInANativeImage() throws Exception {
		// the builder finds the engine through ServiceLoader: the services file and the
		// provider's constructor must reach the image
		assertThat(new ClassPathResource(RedisLockRuntimeHints.PROVIDER_SERVICE).exists()).isTrue();
		assertThat(RuntimeHintsPredicates.resource().forResource(RedisLockRuntimeHints.PROVIDER_SERVICE))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Class.forName("io.github.redislock.internal.DefaultRedisLockClientProvider"))
			.withMemberCategory(MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)).accepts(this.hints);
	}

	@Test
	void springsAotProcessingFindsTheRegistrar() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anyMatch(RedisLockRuntimeHints.class::isInstance);
	}

}
