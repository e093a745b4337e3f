# The lockstep worker image used by docker-compose.yml.
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q package -DskipTests -pl lockstep-cli -am

FROM eclipse-temurin:17-jre
COPY --from=build /src/target/lockstep.jar /opt/lockstep/lockstep.jar
USER 10001
ENTRYPOINT ["java", "-jar", "/opt/lockstep/lockstep.jar"]
CMD ["worker"]
