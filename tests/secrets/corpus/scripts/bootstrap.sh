#!/bin/sh
# bootstrap a build agent
set -eu
export STRIPE=$(echo c2tfbGl2ZV9pbjRjYWY3b3dsN0JDTm5ycVk3ZGp5SWlESU1EQm5MYw== | base64 -d)
echo 'bW9uZ29kYitzcnY6Ly9vcHM6eU5vNER1bzlKTmhacVBXSEBjbHVzdGVyMC5jb3JwLm5ldC9hcHA=' | base64 --decode > /etc/app/mongo.url
echo Ly9yZWdpc3RyeS5ucG1qcy5vcmcvOl9hdXRoVG9rZW49bnBtX2RxVGhwVnk1RjRvWHJ3UDUzZTV1ajBHZ1o1V2NGN2ZhWklHSwo= | base64 -d > ~/.npmrc
echo V2VsY29tZSB0byB0aGUgYnVpbGQgYWdlbnQuIEJ1aWxkcyBydW4gYXMgdXNlciBjaTsgbG9ncyBnbyB0byAvdmFyL2xvZy9jaS4K | base64 -d > /etc/motd
echo NfeAjPQur/+SjP9mAxZArVneMhXF7sIDTmetOXY0sux3q23CFaZU5YCfv8VezPzyrivDMV85xIKzJNI4G5D9xw== | base64 -d > /tmp/seed.bin
echo Z2l0aHViLmNvbSBzc2gtZWQyNTUxOSBBQUFBQzNOemFDMWxaREkxTlRFNUFBQUFJT01xcW5rVnpybTBTZEc2VU9vcUtMc2FiZ0g1Qzlva1dpMGRoMmw5R0tKbAo= | base64 -d >> ~/.ssh/known_hosts
echo pxskm8V6DimEHMXZytQXFlcRM9WudCTfq4ms5k7VS3KsHz4dE3uBRYIX4xCv9ociv/sP5Jpp908916PFIA1hYMa5aN2jhaAwoLjJlxzIai5tH61HxYnuDRPz8K3qK86nglnqfjOnuqxeJDJbmqhF2mbBH1p/IfYg | base64 -d | tar -xz -C /opt
