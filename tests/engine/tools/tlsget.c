/* A TLS client for the busybox test image, whose own (ssl_client) speaks no ECDSA and checks no certificate: it
 * asks the sandbox agent's proxy on 127.0.0.1:PORT for a CONNECT tunnel to AUTHORITY, speaks TLS with SNI through
 * it, verified for that name against $SSL_CERT_FILE (the bundle the app gives the sandbox), offering h2 and
 * http/1.1 as curl does, sends its stdin and prints what comes back. Static, so it runs in any image.
 *
 *     tlsget PORT AUTHORITY NAME < request
 *
 * Exit codes: 0 answered, 1 the proxy refused or failed, 2 the TLS handshake or the verification failed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: tlsget PORT AUTHORITY NAME < request\n");
        return 64;
    }
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
