package io.github.redislock.docs.quickstart;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The quick start's application, which {@link OrderServiceTest} starts. */
@SpringBootApplication
public class QuickstartApplication {

}
