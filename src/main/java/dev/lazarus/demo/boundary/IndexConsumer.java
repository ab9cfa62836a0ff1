package dev.lazarus.demo.boundary;

import dev.lazarus.demo.control.DocumentIngestion;
import dev.lazarus.pipeline.boundary.StepConsumer;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;

/** Consumes the index step of document ingestion. */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "destination", propertyValue = DocumentIngestion.INDEX_QUEUE),
        @ActivationConfigProperty(propertyName = "useJNDI", propertyValue = "false"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = "${lazarus.consumer.max-session:8}")})
public class IndexConsumer extends StepConsumer {
}
