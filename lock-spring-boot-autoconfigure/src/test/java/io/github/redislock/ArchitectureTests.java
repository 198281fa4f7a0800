package io.github.redislock;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.github.redislock.internal.DefaultRedisLockClient;
import io.github.redislock.internal.Durations;
import io.github.redislock.internal.LockNames;
import io.github.redislock.internal.ReactiveLocks;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Which packages of the library may use which, as the library's design says: the lock
 * core (the API package and {@code internal}) knows nothing of AOP, the interceptor or
 * Spring Boot; the annotation package is the annotation alone; the API reaches into
 * {@code internal} only through its factories. A change that crosses a line fails here
 * naming the classes, rather than in a review.
 */
class ArchitectureTests {

	private static final JavaClasses library = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.redislock");

	/**
	 * The public types depend on {@code internal} only where they create its objects
	 * ({@code RedisLockClient.builder()}, {@code ReactiveRedisLockClient.create}) and for
	 * the checks of names and durations they share with it. Breaking that loop would take
	 * a public API change or a service lookup that hides the same dependency.
	 */
	@Test
	void theApiUsesInternalOnlyThroughItsFactoriesAndSharedChecks() {
		noClasses().that()
			.resideInAPackage("io.github.redislock")
			.should()
			.dependOnClassesThat(resideInAPackage("io.github.redislock.internal..")
				.and(not(belongToAnyOf(DefaultRedisLockClient.class, ReactiveLocks.class, LockNames.class,
						Durations.class))))
			.check(library);
	}

	@Test
	void theLockCoreKnowsNothingOfAopTheInterceptorOrBoot() {
		noClasses().that()
			.resideInAnyPackage("io.github.redislock", "io.github.redislock.internal..")
			.should()
			.dependOnClassesThat(
					resideInAnyPackage("io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
							"org.springframework.aop..", "org.aopalliance..", "org.springframework.boot.."))
			.check(library);
	}

	@Test
	void theAnnotationsNeedNothingButThemselves() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.annotation..")
			.should()
			.dependOnClassesThat(resideInAnyPackage("io.github.redislock.internal..",
					"io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
					"org.springframework.aop..", "org.springframework.boot.."))
			.check(library);
	}

	@Test
	void theInterceptorKnowsNothingOfBoot() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.interceptor..")
			.should()
			.dependOnClassesThat(
					resideInAnyPackage("io.github.redislock.autoconfigure..", "org.springframework.boot.."))
			.check(library);
	}

	/**
	 * The stores that refuse a stale holder are built on the public API and Spring alone,
	 * as a user's own guard would be.
	 */
	@Test
	void theFencingGuardsUseOnlyThePublicApiAndSpring() {
		noClasses().that()
			.resideInAPackage("io.github.redislock.fencing..")
			.should()
			.dependOnClassesThat(resideInAnyPackage("io.github.redislock.internal..",
					"io.github.redislock.interceptor..", "io.github.redislock.autoconfigure..",
					"io.github.redislock.annotation..", "org.springframework.aop..", "org.springframework.boot.."))
			.check(library);
	}

}
