/* A TLS client for the busybox test image, whose own (ssl_client) speaks no ECDSA and checks no certificate: it
 * asks the sandbox agent's proxy on 127.0.0.1:PORT for a CONNECT tunnel to AUTHORITY, speaks TLS with SNI through
 * it, verified for that name against $SSL_CERT_FILE (the bundle the app gives the sandbox), offering h2 and
 * http/1.1 as curl does, sends its stdin and prints what comes back. Static, so it runs in any image.
 *
 *     tlsget PORT AUTHORITY NAME < request
 *     tlsget -n COUNT PORT AUTHORITY NAME < request
 *
 * With -n (zeus-bench-egress), stdin is one keep-alive request, sent COUNT times on the one connection, each after
 * the answer to the one before (which must carry a Content-Length); the answers go to stdout and the timings,
 * measured here so that they leave out this process's start, to stderr: "tlsget: connected MS" (TCP, CONNECT and
 * the TLS handshake), then "tlsget: request I STATUS MS" per request, from its first byte written to its answer's
 * last byte read.
 *
 * Exit codes: 0 answered, 1 the proxy refused or failed, 2 the TLS handshake or the verification failed. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int connectProxy(int port, const char* authority) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_port = htons((unsigned short)port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
        perror("tlsget: connect");
        return -1;
    }
    char head[1024];
    int n = snprintf(head, sizeof head, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", authority, authority);
    if (n <= 0 || n >= (int)sizeof head || write(fd, head, (size_t)n) != n) {
        return -1;
    }
    /* The proxy's answer, byte by byte: nothing of the tunnel may be read with it. */
    char reply[2048];
    size_t got = 0;
    while (got < sizeof reply - 1) {
        if (read(fd, reply + got, 1) != 1) {
            break;
        }
        got++;
        if (got >= 4 && memcmp(reply + got - 4, "\r\n\r\n", 4) == 0) {
            break;
        }
    }
    reply[got] = '\0';
    if (strncmp(reply, "HTTP/1.1 200", 12) != 0) {
        fputs(reply, stdout);
        return -1;
    }
    return fd;
}

static double nowMs(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One answer with a Content-Length, to stdout; what came after it stays in `buffer` (`*held` bytes). Returns its
 * status, or -1 when the connection ended or the answer has no length. */
static int readAnswer(SSL* ssl, char* buffer, size_t size, size_t* held) {
    char* end = NULL;
    while ((end = strstr(buffer, "\r\n\r\n")) == NULL) {
        int r = *held < size - 1 ? SSL_read(ssl, buffer + *held, (int)(size - 1 - *held)) : 0;
        if (r <= 0) {
            return -1;
        }
        *held += (size_t)r;
        buffer[*held] = '\0';
    }
    size_t head = (size_t)(end - buffer) + 4;
    long length = -1;
    for (char* line = strstr(buffer, "\r\n"); line != NULL && line < end; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Content-Length:", 15) == 0) {
            length = strtol(line + 17, NULL, 10);
        }
    }
    int status = isdigit((unsigned char)buffer[9]) ? atoi(buffer + 9) : -1;
    if (length < 0 || head + (size_t)length > size - 1) {
        return -1;
    }
    while (*held < head + (size_t)length) {
        int r = SSL_read(ssl, buffer + *held, (int)(size - 1 - *held));
        if (r <= 0) {
            return -1;
        }
        *held += (size_t)r;
    }
    fwrite(buffer, 1, head + (size_t)length, stdout);
    *held -= head + (size_t)length;
    memmove(buffer, buffer + head + (size_t)length, *held);
    buffer[*held] = '\0';
    return status;
}

/* -n COUNT: the request of stdin COUNT times on this connection, one after the other, each timed. */
static int repeat(SSL* ssl, int count) {
    static char request[65536];
    static char answer[65536];
    size_t length = 0;
    ssize_t n;
    while (length < sizeof request && (n = read(0, request + length, sizeof request - length)) > 0) {
        length += (size_t)n;
    }
    size_t held = 0;
    answer[0] = '\0';
    for (int i = 1; i <= count; i++) {
        double start = nowMs();
        if (SSL_write(ssl, request, (int)length) <= 0) {
            return 1;
        }
        int status = readAnswer(ssl, answer, sizeof answer, &held);
        fprintf(stderr, "tlsget: request %d %d %.3f\n", i, status, nowMs() - start);
        if (status < 0) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    int count = 0;
    if (argc == 6 && strcmp(argv[1], "-n") == 0) {
        count = atoi(argv[2]) > 0 ? atoi(argv[2]) : -1;
        argv += 2;
        argc -= 2;
    }
    if (argc != 4 || count < 0) {
        fprintf(stderr, "usage: tlsget [-n COUNT] PORT AUTHORITY NAME < request\n");
        return 64;
    }
    double start = nowMs();
    int fd = connectProxy(atoi(argv[1]), argv[2]);
    if (fd < 0) {
        return 1;
    }
    const char* bundle = getenv("SSL_CERT_FILE");
    SSL_CTX* context = SSL_CTX_new(TLS_client_method());
    if (bundle == NULL || SSL_CTX_load_verify_locations(context, bundle, NULL) != 1) {
        fprintf(stderr, "tlsget: no trust bundle in SSL_CERT_FILE\n");
        return 2;
    }
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER, NULL);
    static const unsigned char protocols[] = "\x02h2\x08http/1.1";
    SSL_CTX_set_alpn_protos(context, protocols, sizeof protocols - 1);
    SSL* ssl = SSL_new(context);
    SSL_set_fd(ssl, fd);
    SSL_set_tlsext_host_name(ssl, argv[3]);
    SSL_set1_host(ssl, argv[3]);
    if (SSL_connect(ssl) != 1) {
        fprintf(stderr, "tlsget: TLS failed: %s\n", X509_verify_cert_error_string(SSL_get_verify_result(ssl)));
        ERR_print_errors_fp(stderr);
        return 2;
    }
    const unsigned char* protocol = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &protocol, &length);
    fprintf(stderr, "tlsget: alpn %.*s\n", (int)length, protocol == NULL ? "" : (const char*)protocol);
    if (count > 0) {
        fprintf(stderr, "tlsget: connected %.3f\n", nowMs() - start);
        int status = repeat(ssl, count);
        SSL_shutdown(ssl);
        return status;
    }
    char buffer[16384];
    ssize_t n;
    while ((n = read(0, buffer, sizeof buffer)) > 0) {
        if (SSL_write(ssl, buffer, (int)n) <= 0) {
            return 1;
        }
    }
    int r;
    while ((r = SSL_read(ssl, buffer, sizeof buffer)) > 0) {
        fwrite(buffer, 1, (size_t)r, stdout);
    }
    SSL_shutdown(ssl);
    return 0;
}
