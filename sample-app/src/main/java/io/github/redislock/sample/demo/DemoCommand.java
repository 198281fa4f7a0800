package io.github.redislock.sample.demo;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Runs the oversell demo once at start-up when the application is started with
 * {@code --demo}; the table goes to the log. The application keeps serving afterwards.
 */
@Component
class DemoCommand implements ApplicationRunner {

	private final OversellDemo demo;

	DemoCommand(OversellDemo demo) {
		this.demo = demo;
	}

	@Override
	public void run(ApplicationArguments args) {
		if (args.containsOption("demo")) {
			this.demo.run(20, 200, 16);
		}
	}

}
