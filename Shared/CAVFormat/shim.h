#include <libavformat/avformat.h>
#include <libavutil/dict.h>
#include <libavutil/display.h>
#include <libavutil/error.h>

/// The display matrix of a stream (its rotation and flips), or NULL. Where it lives moved between
/// FFmpeg releases (AVStream side data until 6.0, codec parameters' coded side data from 6.1), so
/// Swift asks here instead of following either layout itself.
static inline const int32_t *lightbox_stream_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
    const AVPacketSideData *side_data = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                                stream->codecpar->nb_coded_side_data,
                                                                AV_PKT_DATA_DISPLAYMATRIX);
    if (side_data == NULL || side_data->size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)side_data->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (data == NULL || size < 9 * sizeof(int32_t)) return NULL;
    return (const int32_t *)data;
#endif
}

#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>

/// The first picture of a movie's best video stream, scaled to fit `max_side` pixels (never
/// enlarged) and converted to packed 8-bit RGB. On success `*rgb` is an av_malloc'd buffer of
/// `*width` × `*height` × 3 bytes (free with av_free) and 0 is returned; otherwise a negative
/// AVERROR. Pictures larger than `max_pixels` are refused before decoding (AVERROR(E2BIG)), and at
/// most `max_packets` packets are read, so a hostile file cannot keep the decoder busy for long.
/// In C because the decode loop is a dance of reference-counted structs Swift would only mirror.
static inline int lightbox_av_poster_rgb(const char *path, int max_side, int64_t max_pixels, int max_packets,
                                         uint8_t **rgb, int *width, int *height) {
    AVFormatContext *format = NULL;
    AVCodecContext *decoder = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    struct SwsContext *scaler = NULL;
    int result = avformat_open_input(&format, path, NULL, NULL);
    if (result < 0) return result;
    if ((result = avformat_find_stream_info(format, NULL)) < 0) goto done;
    const AVCodec *codec = NULL;
    int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (stream < 0 || codec == NULL) { result = stream < 0 ? stream : AVERROR_DECODER_NOT_FOUND; goto done; }
    AVCodecParameters *parameters = format->streams[stream]->codecpar;
    if (parameters->width <= 0 || parameters->height <= 0
        || (int64_t)parameters->width * parameters->height > max_pixels) { result = AVERROR(E2BIG); goto done; }
    decoder = avcodec_alloc_context3(codec);
    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (decoder == NULL || packet == NULL || frame == NULL) { result = AVERROR(ENOMEM); goto done; }
    if ((result = avcodec_parameters_to_context(decoder, parameters)) < 0) goto done;
    decoder->thread_count = 1;
    if ((result = avcodec_open2(decoder, codec, NULL)) < 0) goto done;
    int decoded = 0;
    for (int read = 0; read < max_packets && !decoded; read++) {
        result = av_read_frame(format, packet);
        if (result == AVERROR_EOF) { avcodec_send_packet(decoder, NULL); }
        else if (result < 0) goto done;
        else if (packet->stream_index != stream) { av_packet_unref(packet); continue; }
        else { avcodec_send_packet(decoder, packet); av_packet_unref(packet); }
        result = avcodec_receive_frame(decoder, frame);
        if (result == 0) decoded = 1;
        else if (result != AVERROR(EAGAIN)) goto done;
    }
    if (!decoded) { result = AVERROR_INVALIDDATA; goto done; }
    if ((int64_t)frame->width * frame->height > max_pixels || frame->width <= 0 || frame->height <= 0) {
        result = AVERROR(E2BIG); goto done;
    }
    double scale = (double)max_side / (frame->width > frame->height ? frame->width : frame->height);
    if (scale > 1) scale = 1;
    int out_width = (int)(frame->width * scale + 0.5), out_height = (int)(frame->height * scale + 0.5);
    if (out_width < 1) out_width = 1;
    if (out_height < 1) out_height = 1;
    scaler = sws_getContext(frame->width, frame->height, (enum AVPixelFormat)frame->format, out_width, out_height,
                            AV_PIX_FMT_RGB24, SWS_BILINEAR, NULL, NULL, NULL);
    if (scaler == NULL) { result = AVERROR(EINVAL); goto done; }
    uint8_t *buffer = av_malloc((size_t)out_width * out_height * 3);
    if (buffer == NULL) { result = AVERROR(ENOMEM); goto done; }
    uint8_t *planes[4] = {buffer, NULL, NULL, NULL};
    int strides[4] = {out_width * 3, 0, 0, 0};
    sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    *rgb = buffer;
    *width = out_width;
    *height = out_height;
    result = 0;
done:
    sws_freeContext(scaler);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
    return result;
}
